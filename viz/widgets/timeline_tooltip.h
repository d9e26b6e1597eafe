#pragma once
// The tooltip of a timeline event: what the model says of the rTask or
// barrier wait, its slip against the other trace when two are compared,
// and which trace it is from.
#include <QString>

#include "viz/models/timeline_model.h"
#include "viz/models/trace_comparison.h"

namespace rammer::viz {

// `comparisonLayer`: the event is the comparison trace's. `comparison`:
// the rTask-by-rTask comparison, when there is one. `twoTraces`: name the
// trace (two are shown).
QString describeHit(const TimelineModel& model, const TimelineHit& hit, bool comparisonLayer,
                    const TraceComparison* comparison, bool twoTraces);

// The tooltip of a lane's header: its SM, its vEU (or how many a folded SM
// lane holds) and rTasks, and what a double-click does.
QString describeLane(const TimelineModel& model, int lane);

}  // namespace rammer::viz
