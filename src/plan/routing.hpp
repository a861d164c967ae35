// Seeded routing model of the MoE layers: which ranks each token's top-k experts live on.
// Deterministic across ranks, compilers and standard libraries (own generator and sampling, no <random>
// distributions), so every rank derives the same rank-to-rank matrix from the same seed.
#pragma once

#include <cstdint>

#include "config/run_config.hpp"
#include "plan/byte_matrix.hpp"

namespace k25 {

// Copies sent from rank src to rank dst in one MoE layer's dispatch, with `tokens` tokens on every rank.
// Experts are spread evenly: expert e lives on rank e / (experts / ranks). One copy per (token, destination
// rank) for CopyGranularity::per_rank, one per (token, selected expert) for per_expert. `layer` varies the
// draw per layer.
ByteMatrix route_copies(const ModelSpec& model, const RoutingSpec& routing, int tokens, int ranks, int layer);

// Relative popularity of each expert: 1 for uniform; 1/(position+1)^s for Zipf, with the positions a seeded
// permutation of the experts so that hot experts are scattered over ranks.
std::vector<double> expert_weights(const ModelSpec& model, const RoutingSpec& routing);

}  // namespace k25
