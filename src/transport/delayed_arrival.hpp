// Test-only --inject-delay RANK:US: the chosen rank arrives US microseconds late at every trial (a busy wait
// after the trial's barrier, before its first timestamp), as a rank whose compute before the step ran long.
// It wraps any transport, so that tests can check that the report names that rank as the slowest.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "transport/transport.hpp"

namespace k25 {

struct DelaySpec {
  int rank = 0;
  double microseconds = 0;
};

// Parses "RANK:US" (RANK a non-negative integer, US a positive number of microseconds up to 10 s); empty
// text: no injection. Throws UsageError on a malformed value.
std::optional<DelaySpec> parse_delay_spec(const std::string& text);

class DelayedArrival final : public Transport {
 public:
  DelayedArrival(std::unique_ptr<Transport> inner, double delay_us);

  void begin_trial() override;

  std::string name() const override { return inner_->name(); }
  std::string clock_description() const override { return inner_->clock_description(); }
  bool supports_graph() const override { return inner_->supports_graph(); }
  bool completes_on_launch() const override { return inner_->completes_on_launch(); }
  int device() const override { return inner_->device(); }
  void allocate(const BufferSizes& sizes) override { inner_->allocate(sizes); }
  [[nodiscard]] BurstId prepare(const OpBurst& burst) override { return inner_->prepare(burst); }
  void launch(BurstId burst, std::size_t op_index) override { inner_->launch(burst, op_index); }
  void launch_gap(BurstId burst, std::size_t op_index) override { inner_->launch_gap(burst, op_index); }
  [[nodiscard]] int mark() override { return inner_->mark(); }
  void synchronize() override { inner_->synchronize(); }
  [[nodiscard]] double elapsed_us(int from_slot, int to_slot) override {
    return inner_->elapsed_us(from_slot, to_slot);
  }
  void reset_marks() override { inner_->reset_marks(); }
  std::size_t max_held_launches() const override { return inner_->max_held_launches(); }
  void hold_stream() override { inner_->hold_stream(); }
  void release_stream() override { inner_->release_stream(); }
  [[nodiscard]] std::unique_ptr<CapturedBurst> capture(BurstId burst) override {
    return inner_->capture(burst);
  }
  void replay(CapturedBurst& burst) override { inner_->replay(burst); }
  [[nodiscard]] std::uint64_t verify(BurstId burst, std::size_t op_index) override {
    return inner_->verify(burst, op_index);
  }
  [[nodiscard]] std::uint64_t verify_burst(BurstId burst) override { return inner_->verify_burst(burst); }
  Transport& innermost() override { return inner_->innermost(); }
  std::string caveat(int ranks) const override { return inner_->caveat(ranks); }

 private:
  std::unique_ptr<Transport> inner_;
  double delay_us_;
};

}  // namespace k25
