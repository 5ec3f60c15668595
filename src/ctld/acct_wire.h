#pragma once
// Accounting records between include/drover/accounting.h and proto/drover/v1/accounting.proto,
// both ways: sacct converts the controller's reply back into acct records for src/acct/report,
// and the controller's QueryAccounting handler can use the other direction. Field for field.
#include <vector>

#include "drover/accounting.h"
#include "drover/v1/accounting.pb.h"

namespace drover::ctld {

v1::AcctJobRecord toWire(const acct::JobRecord& job);
v1::AcctStepRecord toWire(const acct::StepRecord& step);
v1::AcctJobWithSteps toWire(const acct::JobWithSteps& job);
v1::QueryAccountingRequest toWire(const acct::AcctFilter& filter);

acct::JobRecord fromWire(const v1::AcctJobRecord& job);
acct::StepRecord fromWire(const v1::AcctStepRecord& step);
acct::JobWithSteps fromWire(const v1::AcctJobWithSteps& job);
acct::AcctFilter fromWire(const v1::QueryAccountingRequest& request);

}  // namespace drover::ctld
