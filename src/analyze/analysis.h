// Runs every analysis on one trace, in one explicit list (no registration magic).
#pragma once

#include <string>
#include <vector>

#include "analyze/analysis_input.h"
#include "analyze/communication.h"
#include "analyze/data_quality.h"
#include "analyze/flops.h"
#include "analyze/gpu_metrics.h"
#include "analyze/hta_idle_split.h"
#include "analyze/idle_gaps.h"
#include "analyze/job_facts.h"
#include "analyze/kernel_stats.h"
#include "analyze/launch_stats.h"
#include "analyze/memory_usage.h"
#include "analyze/metric.h"
#include "analyze/profiled_kernels.h"
#include "analyze/sm_efficiency.h"
#include "analyze/step_breakdown.h"
#include "analyze/sync_copies.h"
#include "analyze/temporal_breakdown.h"
#include "analyze/time_series.h"
#include "analyze/utilization.h"
#include "analyze/warmup.h"

namespace gpuwhy {

struct TraceAnalysis {
  WarmupResult warmup;
  JobFacts job;  // training or inference, precision, optimizer: what fixes can apply
  DeviceTimelines timelines;
  UtilizationResult utilization;
  TemporalBreakdownResult temporal;
  HtaIdleSplitResult hta_idle_split;
  StepBreakdownResult steps;
  IdleGapsResult idle_gaps;
  KernelStatsResult kernels;
  ProfiledKernelsResult profiled_kernels;  // with Nsight Compute exports given
  SmEfficiencyResult sm_efficiency;        // from Kineto launch arguments (estimates)
  FlopsResult flops;                       // model FLOPs and MFU
  GpuMetricsResult gpu_metrics;            // sampled SM/tensor/DRAM activity (nsys GPU_METRICS)
  LaunchStatsResult launch;
  SyncCopiesResult sync_copies;
  CommunicationResult communication;
  MemoryUsageResult memory;
  DataQualityResult data_quality;
  TimeSeriesResult series;  // buckets over time for the HTML report
  MetricSet metrics;
  bool hta_compat = false;  // computed with AnalysisOptions::hta_compat (renderers say so)
};

TraceAnalysis AnalyzeTrace(const Trace& trace, const AnalysisOptions& options = {});

}  // namespace gpuwhy
