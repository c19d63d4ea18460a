// Shared by every benchmark program: runs Google Benchmark as usual, then prints each
// subject's time as a ratio of a floor measured in the same process, either as a separate
// benchmark or, for a paired benchmark (register_paired), in the subject's own loop.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace zt_bench {

/// `subject` and `floor` are benchmark names as Google Benchmark prints them, e.g.
/// "BM_frombuffer_typed/1000" and "BM_eigen_map/1000". For a paired benchmark `floor` only
/// names the floor in the table.
struct Comparison {
  std::string subject;
  std::string floor;
};

// What a paired benchmark reports besides its time, which is the subject's.
inline constexpr const char* floor_seconds_counter = "floor_s";  // the floor's time per iteration
inline constexpr const char* paired_ratio_counter = "ratio";     // subject time / floor time, whole repetition

/// The loop of a paired benchmark: every iteration times `subject()` and `floor()` one after
/// the other, so that a machine whose speed drifts (a shared VM) slows both alike; which goes
/// first alternates, so that neither always finds the caches as the other left them.
template <class Subject, class Floor>
void run_paired(benchmark::State& state, Subject& subject, Floor& floor) {
  const auto seconds = [](auto& body) {
    const auto start = std::chrono::steady_clock::now();
    body();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  double subject_total = 0, floor_total = 0;
  bool subject_first = true;
  for (auto _ : state) {
    double subject_time = 0;
    if (subject_first) subject_time = seconds(subject);
    floor_total += seconds(floor);
    if (!subject_first) subject_time = seconds(subject);
    subject_first = !subject_first;
    subject_total += subject_time;
    state.SetIterationTime(subject_time);
  }
  // Each thread of a multi-threaded benchmark times its own calls; the floor's time is then
  // given as Google Benchmark gives the subject's: per iteration of all threads together.
  state.counters[floor_seconds_counter] = benchmark::Counter(
      floor_total / double(state.iterations()) / state.threads(), benchmark::Counter::kAvgThreads);
  state.counters[paired_ratio_counter] = benchmark::Counter(subject_total / floor_total, benchmark::Counter::kAvgThreads);
}

/// Registers `subject_name`, a paired benchmark of `subject` against `floor`, and its row of
/// the table. With repetitions the row gives the median of the repetitions' ratios. With
/// `threads` > 1, that many threads each run the paired loop on copies of the two callables.
template <class Subject, class Floor>
benchmark::internal::Benchmark* register_paired(std::vector<Comparison>& comparisons, const std::string& subject_name,
                                                const std::string& floor_name, Subject subject, Floor floor,
                                                int threads = 1) {
  // Google Benchmark appends "/manual_time" (and "/threads:N") to the names of benchmarks timed by hand.
  const std::string suffix = threads > 1 ? "/threads:" + std::to_string(threads) : "";
  comparisons.push_back({subject_name + "/manual_time" + suffix, floor_name});
  benchmark::internal::Benchmark* benchmark =
      benchmark::RegisterBenchmark(subject_name.c_str(), [subject, floor](benchmark::State& state) {
        Subject own_subject = subject;
        Floor own_floor = floor;
        run_paired(state, own_subject, own_floor);
      })->UseManualTime();
  return threads > 1 ? benchmark->Threads(threads) : benchmark;
}

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      std::string name = run.benchmark_name();
      // With repetitions, the median stands for the benchmark; without, the single run.
      if (run.run_type == Run::RT_Aggregate) {
        if (run.aggregate_name != "median") continue;
        name = run.run_name.str();
      } else if (measured_.count(name) != 0) {
        continue;
      }
      Measured& measured = measured_[name];
      measured.nanoseconds = run.GetAdjustedRealTime() * 1e9 / benchmark::GetTimeUnitMultiplier(run.time_unit);
      const auto floor_seconds = run.counters.find(floor_seconds_counter);
      const auto ratio = run.counters.find(paired_ratio_counter);
      measured.paired = floor_seconds != run.counters.end() && ratio != run.counters.end();
      if (measured.paired) {
        measured.floor_nanoseconds = floor_seconds->second.value * 1e9;
        measured.ratio = ratio->second.value;
      }
    }
  }

  void print_ratios(const std::vector<Comparison>& comparisons) const {
    std::printf("\n%-52s %-40s %12s %12s %8s\n", "subject", "floor", "subject ns", "floor ns", "ratio");
    bool any_paired = false;
    for (const Comparison& c : comparisons) {
      const auto subject = measured_.find(c.subject);
      if (subject == measured_.end()) continue;  // filtered out
      double floor_nanoseconds = subject->second.floor_nanoseconds, ratio = subject->second.ratio;
      if (subject->second.paired) {
        any_paired = true;
      } else {
        const auto floor = measured_.find(c.floor);
        if (floor == measured_.end()) continue;
        floor_nanoseconds = floor->second.nanoseconds;
        ratio = subject->second.nanoseconds / floor_nanoseconds;
      }
      std::printf("%-52s %-40s %12.2f %12.2f %7.2fx\n", c.subject.c_str(), c.floor.c_str(),
                  subject->second.nanoseconds, floor_nanoseconds, ratio);
    }
    std::printf("ratio = subject time / floor time (below 1: faster than the floor)\n");
    if (any_paired)
      std::printf(".../manual_time rows: subject and floor timed in turn in one loop; ratio = the median of the "
                  "repetitions' ratios\n");
  }

 private:
  struct Measured {
    double nanoseconds = 0;
    bool paired = false;  // then the floor's time and the ratio come from the same loop
    double floor_nanoseconds = 0;
    double ratio = 0;
  };
  std::map<std::string, Measured> measured_;
};

/// The main() of a benchmark program.
inline int run(int argc, char** argv, const std::vector<Comparison>& comparisons) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.print_ratios(comparisons);
  benchmark::Shutdown();
  return 0;
}

}  // namespace zt_bench
