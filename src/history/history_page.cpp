// The history page's files (history_page.hpp).
#include "history/history_page.hpp"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/shared_files.hpp"
#include "history/history_summary.hpp"

namespace k25 {

namespace fs = std::filesystem;

namespace {

constexpr const char* kDebianChartJs = "/usr/share/javascript/chart.js/chart.min.js";

std::string html(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string shared_asset(const std::string& relative) {
  const fs::path found = first_existing_file(shared_file_lookup(relative));
  if (found.empty())
    throw UsageError(
        fmt::format("history page: {} not found beside k25comm (looked for it under the working "
                    "directory, an install's share/k25comm and the source tree)",
                    relative));
  return found.string();
}

// The element id of a figure's chart: "fig-" and its name with every other character than a letter or digit
// as "-" (data/history-page.js makes the same).
std::string figure_anchor(const std::string& name) {
  std::string id = "fig-";
  for (const char c : name) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return id;
}

const HistoryRun* run_of(const HistoryDocument& doc, const std::string& node, const std::string& night) {
  for (const HistoryRun& run : doc.runs)
    if (run.node == node && run.night == night) return &run;
  return nullptr;
}

// The latest verdict per figure (rows) and node (columns), each cell linking to the night's report.
std::string latest_table(const HistoryDocument& doc) {
  std::map<std::pair<std::string, std::string>, const LatestVerdict*> cell;
  for (const LatestVerdict& latest : doc.latest) cell[{latest.figure, latest.node}] = &latest;
  std::string rows;
  for (const HistoryFigure& figure : doc.figures) {
    std::string cells;
    for (const std::string& node : doc.nodes) {
      const auto found = cell.find({figure.name, node});
      if (found == cell.end()) {
        cells += "<td class=\"verdict none\">-</td>";
        continue;
      }
      const LatestVerdict& v = *found->second;
      const HistoryRun* run = run_of(doc, node, v.night);
      const std::string ratio = v.ratio ? fmt::format(" {:.3f}x", *v.ratio) : "";
      const std::string what = fmt::format("{}{}: {:.4g} {}", v.verdict, ratio, v.value, figure.unit);
      cells += fmt::format("<td class=\"verdict {}\" data-node=\"{}\" data-night=\"{}\">{}</td>",
                           html(v.verdict == "no baseline"  ? "no-baseline"
                                : v.verdict == "not judged" ? "not-judged"
                                                            : v.verdict),
                           html(node), html(v.night),
                           run != nullptr && !run->report.empty()
                               ? fmt::format("<a href=\"{}\">{}</a>", html(run->report), html(what))
                               : html(what));
    }
    rows += fmt::format("<tr><th scope=\"row\"><a href=\"#{}\">{}</a></th>{}</tr>\n",
                        figure_anchor(figure.name), html(figure.name), cells);
  }
  std::string head;
  for (const std::string& node : doc.nodes) {
    std::string topology;
    for (const HistoryRun& run : doc.runs)
      if (run.node == node) topology = run.topology;  // the latest night's
    head += fmt::format("<th scope=\"col\">{} <span class=\"topology\">{}</span></th>", html(node),
                        html(topology));
  }
  return fmt::format(
      "<table id=\"latest-verdicts\">\n<thead><tr><th>figure</th>{}</tr></thead>\n<tbody>\n{}</tbody>\n</table>",
      head, rows);
}

std::string upgrade_list(const HistoryDocument& doc) {
  if (doc.upgrades.empty()) return "<p>No run field changed between two nights of a node.</p>";
  std::string items;
  for (const HistoryUpgrade& upgrade : doc.upgrades) {
    const HistoryRun* run = run_of(doc, upgrade.node, upgrade.night);
    const std::string night =
        run != nullptr ? fmt::format("<a href=\"{}\">{}</a>", html(run->report), html(upgrade.night))
                       : html(upgrade.night);
    items += fmt::format("<li data-node=\"{}\" data-night=\"{}\">{} {}: {}</li>\n", html(upgrade.node),
                         html(upgrade.night), html(upgrade.node), night, html(changes_text(upgrade.changed)));
  }
  return "<ul id=\"upgrades\">\n" + items + "</ul>";
}

std::string index_html(const HistoryDocument& doc) {
  int regressions = 0, suspicious = 0;
  for (const LatestVerdict& latest : doc.latest) {
    regressions += latest.verdict == "regression";
    suspicious += latest.verdict == "suspicious";
  }
  std::string first = doc.runs.empty() ? "" : doc.runs.front().night, last = first;
  for (const HistoryRun& run : doc.runs) {
    first = std::min(first, run.night);
    last = std::max(last, run.night);
  }
  const HistoryRules& r = doc.rules;
  return fmt::format(
      R"html(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>k25comm nightly history</title>
<link rel="stylesheet" href="history-page.css">
<script src="chart.min.js" defer></script>
<script src="history-data.js" defer></script>
<script src="history-page.js" defer></script>
</head>
<body>
<header>
<h1>k25comm nightly history</h1>
<p id="summary">{nodes} node(s), {runs} night(s) from {first} to {last}. Latest nights: <strong>{regressions} regression(s)</strong>, {suspicious} suspicious figure(s).</p>
<p class="rules">A night is judged against the median of the last {window} earlier nights that passed: suspicious when worse by more than {threshold:g} % and by more than that window's spread (or by more than {max_ratio:g}x), a regression after {persist} suspicious nights in a row. Change points: {method}, p &le; {pvalue:g}. Generated {generated} by k25comm {version}; history.json holds every verdict and change point.</p>
</header>
<section>
<h2>Latest verdict per node and figure</h2>
{table}
</section>
<section>
<h2>Upgrades</h2>
{upgrades}
</section>
<section id="figures">
<h2>Figures</h2>
<noscript><p>The charts need JavaScript; history.json holds their data.</p></noscript>
</section>
</body>
</html>
)html",
      fmt::arg("nodes", doc.nodes.size()), fmt::arg("runs", doc.runs.size()), fmt::arg("first", html(first)),
      fmt::arg("last", html(last)), fmt::arg("regressions", regressions), fmt::arg("suspicious", suspicious),
      fmt::arg("window", r.window), fmt::arg("threshold", r.threshold_pct),
      fmt::arg("max_ratio", r.max_ratio), fmt::arg("persist", r.persist),
      fmt::arg("method", html(doc.change_point_method)),
      fmt::arg("pvalue", doc.change_point_rules.max_pvalue), fmt::arg("generated", html(doc.generated_at)),
      fmt::arg("version", html(doc.tool_version)), fmt::arg("table", latest_table(doc)),
      fmt::arg("upgrades", upgrade_list(doc)));
}

}  // namespace

PageAssets find_page_assets() {
  PageAssets assets;
  const char* chosen = std::getenv("K25_CHART_JS");
  assets.chart_js = chosen != nullptr && *chosen != '\0' ? chosen : kDebianChartJs;
  std::error_code error;
  if (!fs::is_regular_file(assets.chart_js, error))
    throw UsageError(
        fmt::format("history page: Chart.js not found at {}: install Debian's libjs-chart.js "
                    "(tools/setup does), or set K25_CHART_JS to its chart.min.js",
                    assets.chart_js));
  assets.page_js = shared_asset("data/history-page.js");
  assets.page_css = shared_asset("data/history-page.css");
  return assets;
}

std::vector<PageFile> history_page_files(const HistoryDocument& doc, const PageAssets& assets) {
  const auto text = [](const HistoryDocument& d) {
    return nlohmann::json(d).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  // The page's copy leaves out what it never reads: the verdicts (each point carries its own) and the latest
  // verdicts (index.html's table), a fifth of a year's document.
  HistoryDocument drawn = doc;
  drawn.verdicts.clear();
  drawn.latest.clear();
  return {
      {"index.html", index_html(doc), ""},
      {"history.json", text(doc) + "\n", ""},
      // As a string that JSON.parse reads: V8 parses JSON text faster than the same object literal.
      {"history-data.js",
       "// The history page's data: history.json's document without its verdicts and latest lists (k25comm "
       "history page).\nwindow.K25_HISTORY = JSON.parse(" +
           nlohmann::json(text(drawn)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
           ");\n",
       ""},
      {"chart.min.js", "", assets.chart_js},
      {"history-page.js", "", assets.page_js},
      {"history-page.css", "", assets.page_css}};
}

}  // namespace k25
