#pragma once
// What `rammer profile` prints: the per-rProgram table (kernel time, SM
// efficiency, warp activity, active cycles; estimates marked "~" and
// their sources in the JSON), the measured rKernels against the analytic
// model, the database, and the plan predicted with and without it.
#include <string>

#include "app/cli/json_output.h"
#include "core/schedule/plan.h"
#include "core/sim/profile_db.h"
#include "profiler/profile_session.h"

namespace rammer::cli {

// The plan's latency as the simulator predicts it with the analytic model
// and with `db` in front of it.
struct ProfilePredictions {
  double analyticUs = 0;
  double profiledUs = 0;
};
ir::Result<ProfilePredictions> predictWithDatabase(const schedule::Plan& plan, const sim::ProfileDB& db);

struct ProfileReport {
  std::string model;
  std::string policy;
  std::string dbFile;
  const schedule::Plan& plan;
  const profiler::ProfileResult& result;
  const sim::ProfileDB& db;  // after this run's entries were merged in
  ProfilePredictions predicted;
};

// Keys: model, gpu, arch, device, policy, programs, rtasks, capability,
// kernel_times, counters, latency_us, launches, rkernels, db, predicted_us.
Json profileReportJson(const ProfileReport& report);
// `maxRows` rKernel rows, those with the most rTask time first (0: all).
std::string profileReportText(const ProfileReport& report, int maxRows);

}  // namespace rammer::cli
