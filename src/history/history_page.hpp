// `k25comm history page`: a static page of the history that opens from a file or any static host (a CI
// artifact): index.html with the latest verdict per node and figure on top, and per judged figure a chart of
// value against night per node (PCIe and NVLink nodes on one axis, each night's spread as a band) with the
// regressions, suspicious nights and change points marked, upgrades annotated, each point linking to its
// night's report. The charts are Chart.js's (Debian's libjs-chart.js, copied beside the page), drawn by
// data/history-page.js from history-data.js; history.json holds the same document.
#pragma once

#include <string>
#include <vector>

#include "history/history_document.hpp"

namespace k25 {

// A file of the page: its name in the page's folder, and either its content or the file it is a copy of.
struct PageFile {
  std::string name;
  std::string content;
  std::string copied_from;
};

// The files the page copies beside itself.
struct PageAssets {
  std::string chart_js;  // Chart.js's UMD build
  std::string page_js, page_css;
};

// Chart.js from $K25_CHART_JS, else Debian's /usr/share/javascript/chart.js/chart.min.js; the page's script
// and style from data/ (common/shared_files.hpp). Throws UsageError naming what is missing and the package.
PageAssets find_page_assets();

// index.html, history.json, history-data.js and the copied assets.
std::vector<PageFile> history_page_files(const HistoryDocument& doc, const PageAssets& assets);

}  // namespace k25
