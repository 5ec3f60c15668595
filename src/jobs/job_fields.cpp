#include "jobs/job_fields.h"

#include <algorithm>

namespace drover::jobs {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// One field, by reflection: listings name a handful of fields, and a generic copy keeps every
// field JobInfo gains later selectable without touching this file.
void copyField(const Message& from, Message* to, const FieldDescriptor* f) {
  const Reflection* r = from.GetReflection();
  if (f->is_repeated()) {
    const int n = r->FieldSize(from, f);
    for (int i = 0; i < n; ++i) {
      switch (f->cpp_type()) {
        case FieldDescriptor::CPPTYPE_INT32: r->AddInt32(to, f, r->GetRepeatedInt32(from, f, i)); break;
        case FieldDescriptor::CPPTYPE_INT64: r->AddInt64(to, f, r->GetRepeatedInt64(from, f, i)); break;
        case FieldDescriptor::CPPTYPE_UINT32: r->AddUInt32(to, f, r->GetRepeatedUInt32(from, f, i)); break;
        case FieldDescriptor::CPPTYPE_UINT64: r->AddUInt64(to, f, r->GetRepeatedUInt64(from, f, i)); break;
        case FieldDescriptor::CPPTYPE_DOUBLE: r->AddDouble(to, f, r->GetRepeatedDouble(from, f, i)); break;
        case FieldDescriptor::CPPTYPE_FLOAT: r->AddFloat(to, f, r->GetRepeatedFloat(from, f, i)); break;
        case FieldDescriptor::CPPTYPE_BOOL: r->AddBool(to, f, r->GetRepeatedBool(from, f, i)); break;
        case FieldDescriptor::CPPTYPE_ENUM: r->AddEnumValue(to, f, r->GetRepeatedEnumValue(from, f, i)); break;
        case FieldDescriptor::CPPTYPE_STRING: r->AddString(to, f, r->GetRepeatedString(from, f, i)); break;
        case FieldDescriptor::CPPTYPE_MESSAGE: r->AddMessage(to, f)->CopyFrom(r->GetRepeatedMessage(from, f, i)); break;
      }
    }
    return;
  }
  if (!r->HasField(from, f)) return;  // proto3: a default value is not sent anyway
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: r->SetInt32(to, f, r->GetInt32(from, f)); break;
    case FieldDescriptor::CPPTYPE_INT64: r->SetInt64(to, f, r->GetInt64(from, f)); break;
    case FieldDescriptor::CPPTYPE_UINT32: r->SetUInt32(to, f, r->GetUInt32(from, f)); break;
    case FieldDescriptor::CPPTYPE_UINT64: r->SetUInt64(to, f, r->GetUInt64(from, f)); break;
    case FieldDescriptor::CPPTYPE_DOUBLE: r->SetDouble(to, f, r->GetDouble(from, f)); break;
    case FieldDescriptor::CPPTYPE_FLOAT: r->SetFloat(to, f, r->GetFloat(from, f)); break;
    case FieldDescriptor::CPPTYPE_BOOL: r->SetBool(to, f, r->GetBool(from, f)); break;
    case FieldDescriptor::CPPTYPE_ENUM: r->SetEnumValue(to, f, r->GetEnumValue(from, f)); break;
    case FieldDescriptor::CPPTYPE_STRING: r->SetString(to, f, r->GetString(from, f)); break;
    case FieldDescriptor::CPPTYPE_MESSAGE: r->MutableMessage(to, f)->CopyFrom(r->GetMessage(from, f)); break;
  }
}

// The fields squeue's default views read, copied without reflection (a reflective get/set
// was a quarter of the controller's time for a 5,000-row listing). False: not one of them.
bool copyCommon(const v1::JobInfo& from, v1::JobInfo* to, int number) {
  using J = v1::JobInfo;
  auto str = [](const std::string& value, auto set) {
    if (!value.empty()) set(value);
  };
  switch (number) {
    case J::kJobIdFieldNumber: to->set_job_id(from.job_id()); return true;
    case J::kArrayJobIdFieldNumber: to->set_array_job_id(from.array_job_id()); return true;
    case J::kArrayTaskIdFieldNumber: to->set_array_task_id(from.array_task_id()); return true;
    case J::kArrayTaskPendingFieldNumber:
      str(from.array_task_pending(), [to](const std::string& v) { to->set_array_task_pending(v); });
      return true;
    case J::kNameFieldNumber: str(from.name(), [to](const std::string& v) { to->set_name(v); }); return true;
    case J::kUidFieldNumber: to->set_uid(from.uid()); return true;
    case J::kUserFieldNumber: str(from.user(), [to](const std::string& v) { to->set_user(v); }); return true;
    case J::kAccountFieldNumber: str(from.account(), [to](const std::string& v) { to->set_account(v); }); return true;
    case J::kPartitionFieldNumber:
      str(from.partition(), [to](const std::string& v) { to->set_partition(v); });
      return true;
    case J::kStateFieldNumber: to->set_state(from.state()); return true;
    case J::kReasonFieldNumber: str(from.reason(), [to](const std::string& v) { to->set_reason(v); }); return true;
    case J::kPriorityFieldNumber: to->set_priority(from.priority()); return true;
    case J::kSubmitTimeFieldNumber: to->set_submit_time(from.submit_time()); return true;
    case J::kStartTimeFieldNumber: to->set_start_time(from.start_time()); return true;
    case J::kEndTimeFieldNumber: to->set_end_time(from.end_time()); return true;
    case J::kTimeLimitMinFieldNumber: to->set_time_limit_min(from.time_limit_min()); return true;
    case J::kNumNodesFieldNumber: to->set_num_nodes(from.num_nodes()); return true;
    case J::kNumCpusFieldNumber: to->set_num_cpus(from.num_cpus()); return true;
    case J::kNodesFieldNumber: str(from.nodes(), [to](const std::string& v) { to->set_nodes(v); }); return true;
    case J::kRunTimeSFieldNumber: to->set_run_time_s(from.run_time_s()); return true;
    case J::kReasonDescriptionFieldNumber:
      str(from.reason_description(), [to](const std::string& v) { to->set_reason_description(v); });
      return true;
    case J::kExitCodeFieldNumber: to->set_exit_code(from.exit_code()); return true;
    case J::kExitSignalFieldNumber: to->set_exit_signal(from.exit_signal()); return true;
    case J::kHeldUserFieldNumber: to->set_held_user(from.held_user()); return true;
    case J::kHeldAdminFieldNumber: to->set_held_admin(from.held_admin()); return true;
    case J::kStepsFieldNumber:
      // squeue -s / scontrol show step read a step's shape, never the usage its nodes reported
      // so far (one record per task: the bulk of a large step).
      for (const auto& step : from.steps()) {
        v1::JobStep* copy = to->add_steps();
        *copy = step;
        copy->clear_task_usage();
      }
      return true;
    default: return false;
  }
}

// The same for the spec fields of squeue's default views (%D reads min_nodes); `to` is the
// row, whose spec is created only for a value that is set.
bool copySpecCommon(const v1::JobSpec& from, v1::JobInfo* to, int number) {
  using S = v1::JobSpec;
  auto u32 = [to](std::uint32_t value, void (S::*set)(std::uint32_t)) {
    if (value != 0) (to->mutable_spec()->*set)(value);
  };
  switch (number) {
    case S::kMinNodesFieldNumber: u32(from.min_nodes(), &S::set_min_nodes); return true;
    case S::kCpusPerTaskFieldNumber: u32(from.cpus_per_task(), &S::set_cpus_per_task); return true;
    default: return false;
  }
}

}  // namespace

JobFieldMask JobFieldMask::fromRequest(const v1::GetJobsRequest& request) {
  JobFieldMask mask;
  if (request.fields().empty()) return mask;
  mask.all_ = false;
  const auto* info = v1::JobInfo::descriptor();
  for (std::uint32_t number : request.fields()) {
    const FieldDescriptor* f = info->FindFieldByNumber(static_cast<int>(number));
    if (f && std::find(mask.info_.begin(), mask.info_.end(), f) == mask.info_.end())
      mask.info_.push_back(f);
  }
  const auto* spec = v1::JobSpec::descriptor();
  for (std::uint32_t number : request.spec_fields()) {
    const FieldDescriptor* f = spec->FindFieldByNumber(static_cast<int>(number));
    if (f && std::find(mask.spec_.begin(), mask.spec_.end(), f) == mask.spec_.end())
      mask.spec_.push_back(f);
  }
  return mask;
}

bool JobFieldMask::wants(int number) const {
  return all_ || std::any_of(info_.begin(), info_.end(),
                             [number](const FieldDescriptor* f) { return f->number() == number; });
}

void JobFieldMask::copy(const v1::JobInfo& from, v1::JobInfo* to) const {
  if (all_) {
    to->CopyFrom(from);
    return;
  }
  for (const FieldDescriptor* f : info_) {
    if (f->number() == v1::JobInfo::kSpecFieldNumber && !spec_.empty()) {
      if (!from.has_spec()) continue;
      // No empty spec message in the row when none of the asked fields is set (most jobs):
      // one allocation less per row on each side.
      const Reflection* r = from.spec().GetReflection();
      for (const FieldDescriptor* s : spec_) {
        if (copySpecCommon(from.spec(), to, s->number())) continue;
        const bool set = s->is_repeated() ? r->FieldSize(from.spec(), s) > 0 : r->HasField(from.spec(), s);
        if (set) copyField(from.spec(), to->mutable_spec(), s);
      }
      continue;
    }
    if (!copyCommon(from, to, f->number())) copyField(from, to, f);
  }
}

}  // namespace drover::jobs
