// Shared by every benchmark program: runs Google Benchmark as usual, then prints each
// subject's time as a ratio of a floor measured in the same process.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace zt_bench {

/// `subject` and `floor` are benchmark names as Google Benchmark prints them, e.g.
/// "BM_frombuffer_typed/1000" and "BM_eigen_map/1000".
struct Comparison {
  std::string subject;
  std::string floor;
};

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
      } else if (nanoseconds_.count(name) != 0) {
        continue;
      }
      nanoseconds_[name] = run.GetAdjustedRealTime() * 1e9 / benchmark::GetTimeUnitMultiplier(run.time_unit);
    }
  }

  void print_ratios(const std::vector<Comparison>& comparisons) const {
    std::printf("\n%-52s %-40s %12s %12s %8s\n", "subject", "floor", "subject ns", "floor ns", "ratio");
    for (const Comparison& c : comparisons) {
      auto subject = nanoseconds_.find(c.subject);
      auto floor = nanoseconds_.find(c.floor);
      if (subject == nanoseconds_.end() || floor == nanoseconds_.end()) continue;  // filtered out
      std::printf("%-52s %-40s %12.2f %12.2f %7.2fx\n", c.subject.c_str(), c.floor.c_str(), subject->second,
                  floor->second, subject->second / floor->second);
    }
    std::printf("ratio = subject time / floor time (below 1: faster than the floor)\n");
  }

 private:
  std::map<std::string, double> nanoseconds_;
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
