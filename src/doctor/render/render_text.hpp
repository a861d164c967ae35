// The pieces of doctor's text its renderers share: headings, link and dash words, the verdict list with each
// verdict's evidence, and the sections only pasted inputs fill (sources that disagree, NCCL's communicators
// and connections by rank, the bandwidth tests, DCGM, the inputs read).
#pragma once

#include <string>
#include <vector>

#include "doctor/model/doctor_document.hpp"

namespace k25 {

std::string heading(int level, const std::string& title);
std::string link_text(int gen, int width);  // "Gen4 x16", "?" where unknown
std::string dash(const std::string& text);  // "-" for empty

// One bullet per verdict: severity, id, finding, cost, fix, source; its evidence lines below it.
std::string verdicts_markdown(const std::vector<NodeVerdict>& verdicts);
// "Sources that disagree": each fact two sources gave differently, with both lines; nothing where none.
std::string disagreements_markdown(const NodeModel& model, int level);
// NCCL's communicators and its connections by communicator and rank (a table); nothing without a log.
std::string nccl_log_markdown(const NodeModel& model);
// The pasted bandwidth tests per pair direction: P2P enabled and disabled; nothing where none was given.
std::string bandwidth_markdown(const NodeModel& model, int level);
// DCGM's PCIe and NVLink results; nothing where none was given.
std::string dcgm_markdown(const NodeModel& model, int level);
// "Inputs": each file, the families found in it and what each added, or why it was left out.
std::string inputs_markdown(const std::vector<InputRead>& inputs, int level);

}  // namespace k25
