// predict.csv: one row per (alternative, batch, estimate), from predict.json's document.
#include "common/csv_table.hpp"
#include "predict/predict_document.hpp"

namespace k25 {

using nlohmann::json;

std::string predict_csv(const PredictDocument& r) {
  std::vector<json> rows;
  for (const AltPrediction& a : r.alternatives)
    for (const LevelPrediction& l : a.levels) {
      const json common{{"alternative", a.label},
                        {"batch", l.batch},
                        {"unit", l.step_is_tpot ? "tpot" : "step"},
                        {"base_step_us", l.base_step_us},
                        {"base_exposed_us", l.base_exposed_us},
                        {"refused", l.refused}};
      if (!l.refused.empty()) {
        json row = common;
        row.update({{"method", nullptr}, {"predicted", ""}});
        rows.push_back(row);
        continue;
      }
      for (const StepEstimate& s : l.estimates) {
        json row = common;
        const bool low = s.method == l.low, high = s.method == l.high;
        row.update({{"method", to_string(s.method)},
                    {"predicted", low && high ? "yes"
                                  : low       ? "low"
                                  : high      ? "high"
                                              : ""},
                    {"predicted_exposed_us", s.exposed_us},
                    {"predicted_step_us", s.step_us},
                    {"predicted_step_p90_us", s.step_p90_us}});
        rows.push_back(row);
      }
    }
  return csv_of_records(
      rows, {"alternative", "batch", "unit", "method", "predicted", "base_step_us", "base_exposed_us",
             "predicted_exposed_us", "predicted_step_us", "predicted_step_p90_us", "refused"});
}

}  // namespace k25
