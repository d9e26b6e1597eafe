#pragma once
// The plan a measured trace ran, rebuilt from the trace itself: which
// rKernel each operator ran (by name and rTask count), which vEU of which
// program ran each rTask and in what order, and each program's vDevice
// shape. Barrier-rTasks are not in a trace (they are the gaps); the plan
// gets those the dataflow needs, as every policy's plan does.
//
// Why: a lease measures plans of the commit it ran; the policies of a later
// commit plan differently. Rebuilt, the measured plan can be simulated with
// any cost model and its prediction set against what the GPU did: that is
// how `rammer calibrate` and CI test a model against the committed traces.
#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/schedule/plan.h"
#include "core/schedule/policy.h"
#include "core/sim/trace.h"

namespace rammer::sim {

// What to rebuild of a run. A dynamic run (the ready queue placed its
// rTasks) is either replayed, each rTask on the vEU and in the order the
// queue gave it (what a fit reads its gaps from), or rebuilt as the dynamic
// program it was, with the measured rKernels and vDevices and the
// priorities the dynamic policy gives (what a prediction simulates: another
// run's queue may place the rTasks otherwise).
enum class MeasuredPlanForm { Replay, Dynamic };

// `graph` is the optimized graph the measured run planned (the same passes
// and fusions); `options` supply the rKernel candidates. An error names
// the first operator whose rKernel this build does not offer, an operator
// the trace lacks or has in two programs, and a program whose vDevice
// shape the rKernels cannot take.
ir::Result<schedule::Plan> planOfMeasuredTrace(const Trace& measured, const ir::Graph& graph,
                                               const device::DeviceSpec& device, const schedule::PolicyOptions& options,
                                               MeasuredPlanForm form = MeasuredPlanForm::Replay);

}  // namespace rammer::sim
