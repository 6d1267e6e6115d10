// SPDX-License-Identifier: Apache-2.0
// The Slurm backend of `gpuvp sweep`: points as one job array (chunks of points per array task
// beyond --max-array), polled with squeue (sacct, where accounting runs, names the failure),
// points left without a result by a lost task re-submitted once.
#pragma once
#include <string>
#include <vector>
#include "sweep_run.h"
#include "sweep_spec.h"

namespace gpuvp::sweep {

// Reads DIR/sweep.json, the sweep's manifest (throws config_error when missing or damaged).
spec load_manifest(const std::string& out, commands& c, double& wall_limit, std::string& backend);

// sbatch and squeue are on the PATH; else a config_error saying so (before anything is written).
void check_slurm_commands();

struct slurm_options {
  std::string partition, time, mem, account;
  size_t max_array = 1000;  // array tasks per submission (Slurm's default MaxArraySize is 1001)
  double poll_s = 2;
};

// Submits the points as a job array and records it in DIR/slurm/jobs.json; returns the job id.
std::string slurm_submit(const pool& p, const std::vector<size_t>& ids, const slurm_options& o);
// Waits until the jobs recorded in DIR/slurm/jobs.json have left the queue, re-submits once the
// points that a task left without a result, and waits again. Returns the ids still without a
// result (lost twice) — or throws when Slurm cannot be reached. Returns early (with the ids
// unfinished) on SIGINT/SIGTERM, setting `interrupted`.
std::vector<size_t> slurm_wait(pool& p, const slurm_options& o, int& interrupted);

// The body of an array task: `gpuvp sweep --worker DIR --batch B` (task index from
// SLURM_ARRAY_TASK_ID). Runs the task's points one after the other.
int slurm_worker(const std::string& out, const std::string& batch, long task);

}  // namespace gpuvp::sweep
