#include "ctld/rpc_ids.h"

#include <array>

namespace drover::ctld {
namespace {

struct Row {
  std::string_view method;
  RpcId id;
};

// Append only: sdiag -i sorts by these ids, and scripts may key on them.
constexpr std::array kRows{
    // AgentControl: what droverd and drover-stepd send (Slurm's node messages are MESSAGE_*).
    Row{"Register", {"MESSAGE_NODE_REGISTER", 1001}},
    Row{"Heartbeat", {"MESSAGE_NODE_HEARTBEAT", 1002}},
    Row{"StepEvent", {"MESSAGE_STEP_EVENT", 1003}},
    // Controller: what the CLIs and API clients call.
    Row{"Ping", {"REQUEST_PING", 2001}},
    Row{"GetNodes", {"REQUEST_GET_NODES", 2002}},
    Row{"GetPartitions", {"REQUEST_GET_PARTITIONS", 2003}},
    Row{"UpdateNode", {"REQUEST_UPDATE_NODE", 2004}},
    Row{"Reconfigure", {"REQUEST_RECONFIGURE", 2005}},
    Row{"SubmitJob", {"REQUEST_SUBMIT_JOB", 2006}},
    Row{"GetJobs", {"REQUEST_GET_JOBS", 2007}},
    Row{"CancelJobs", {"REQUEST_CANCEL_JOBS", 2008}},
    Row{"JobControl", {"REQUEST_JOB_CONTROL", 2009}},
    Row{"UpdateJob", {"REQUEST_UPDATE_JOB", 2010}},
    Row{"CreateStep", {"REQUEST_CREATE_STEP", 2011}},
    Row{"AwaitAllocation", {"REQUEST_AWAIT_ALLOCATION", 2012}},
    Row{"CompleteAllocation", {"REQUEST_COMPLETE_ALLOCATION", 2013}},
    Row{"QueryAccounting", {"REQUEST_QUERY_ACCOUNTING", 2014}},
    Row{"CreateReservation", {"REQUEST_CREATE_RESERVATION", 2015}},
    Row{"UpdateReservation", {"REQUEST_UPDATE_RESERVATION", 2016}},
    Row{"DeleteReservation", {"REQUEST_DELETE_RESERVATION", 2017}},
    Row{"GetReservations", {"REQUEST_GET_RESERVATIONS", 2018}},
    Row{"GetPriorities", {"REQUEST_GET_PRIORITIES", 2019}},
    Row{"GetShares", {"REQUEST_GET_SHARES", 2020}},
    Row{"GetStepStats", {"REQUEST_GET_STEP_STATS", 2021}},
    Row{"BroadcastFile", {"REQUEST_BROADCAST_FILE", 2022}},
    Row{"GetStatistics", {"REQUEST_GET_STATISTICS", 2023}},
    Row{"GetJobScript", {"REQUEST_GET_JOB_SCRIPT", 2024}},
    Row{"QueryUsage", {"REQUEST_QUERY_USAGE", 2025}},
    Row{"QueryEvents", {"REQUEST_QUERY_EVENTS", 2026}},
    Row{"SetDebugLevel", {"REQUEST_SET_DEBUG_LEVEL", 2027}},
    Row{"NotifyJob", {"REQUEST_JOB_NOTIFY", 2028}},
    Row{"ListPids", {"REQUEST_LIST_PIDS", 2029}},
    Row{"UpdatePartition", {"REQUEST_UPDATE_PARTITION", 2030}},
};

}  // namespace

RpcId rpcId(std::string_view method) {
  for (const Row& row : kRows) {
    if (row.method == method) return row.id;
  }
  return RpcId{method, 0};
}

}  // namespace drover::ctld
