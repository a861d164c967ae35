// The MoE permutation around an All-to-All, as index maps: which token row each copy of the dispatch takes,
// and which copies of the combine sum into each token row.
#pragma once

#include <cstdint>
#include <vector>

namespace k25 {

// Token copies are numbered in buffer order (peer by peer). Copy i carries token row i mod tokens: within one
// peer's block the copies are distinct tokens whenever a block holds at most `tokens` copies (one copy per
// token and destination rank), and the combine, being the transpose of the dispatch, returns the copies in
// the same order.

// Dispatch pack map: row_of_copy[i] = i mod tokens, for `copies` copies.
std::vector<std::int32_t> dispatch_rows_of_copies(std::uint64_t copies, int tokens);

// Combine unpack map in CSR form: the copies of token t are index[offsets[t] .. offsets[t + 1]).
struct CopiesOfTokens {
  std::vector<std::int32_t> offsets;  // tokens + 1 entries
  std::vector<std::int32_t> index;    // `copies` entries
};
CopiesOfTokens combine_copies_of_tokens(std::uint64_t copies, int tokens);

}  // namespace k25
