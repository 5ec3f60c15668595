// A deliberately misbehaving client for the end-to-end authentication tests: calls
// Controller.Ping with no credential, a forged one, a replayed one, or one bound to another
// request, and prints one line per call: "OK uid=N" or "<GRPC_CODE> <message>".
//   drover-e2e-rawcall HOST:PORT none|forged|replay|rebind [MUNGE_SOCKET]
// It also reaches the job RPCs over gRPC (the CLIs use the frame transport), authenticated
// properly, printing "OK <job id>", "OK <state> <exit>:<signal>" or "<GRPC_CODE> <message>":
//   drover-e2e-rawcall HOST:PORT submit MUNGE_SOCKET WORK_DIR SCRIPT
//   drover-e2e-rawcall HOST:PORT job MUNGE_SOCKET JOB_ID
//   drover-e2e-rawcall HOST:PORT cancel MUNGE_SOCKET JOB_ID
// Any Controller RPC over the frame transport (the CLIs' port), the request in protobuf text
// format on stdin; prints "OK" and the reply in text format, or "<code> <message>". METHOD is
// a Controller method ("GetJobs") or Service.Method for the other services served there
// ("AgentControl.StepEvent", as drover-stepd reports):
//   drover-e2e-rawcall HOST:CLI_PORT frame MUNGE_SOCKET METHOD < request.txt
// Agent.SignalStep to a node's droverd over gRPC, as the controller sends it, the request in
// text format on stdin; prints "OK" or "<GRPC_CODE> <message>":
//   drover-e2e-rawcall HOST:AGENT_PORT signal-step MUNGE_SOCKET < request.txt
// Agent.LaunchStep the same way, as the controller sends (or sends again) a launch:
//   drover-e2e-rawcall HOST:AGENT_PORT launch-step MUNGE_SOCKET < request.txt
// AgentControl.Register to the controller over gRPC, as a (re)starting droverd sends it:
//   drover-e2e-rawcall HOST:PORT register MUNGE_SOCKET < request.txt
#include <grpcpp/grpcpp.h>

#include <iostream>
#include <string>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/text_format.h>

#include <iterator>
#include <memory>

#include "auth/request_binding.h"
#include "drover/v1/agent.grpc.pb.h"
#include "drover/v1/agent_control.grpc.pb.h"
#include "drover/v1/controller.grpc.pb.h"
#include "drover/v1/jobs.pb.h"
#include "rpc/client.h"
#include "rpc/metadata_keys.h"
#include "wire/frame_client.h"

namespace {

const char* codeName(grpc::StatusCode c) {
  switch (c) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS: return "ALREADY_EXISTS";
    default: return "OTHER";
  }
}

void ping(drover::v1::Controller::Stub& stub, const std::string* credential) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  if (credential != nullptr) {
    ctx.AddMetadata(std::string(drover::rpc::kMungeMetadataKey), *credential);
  }
  drover::v1::PingRequest req;
  drover::v1::PingReply rep;
  grpc::Status st = stub.Ping(&ctx, req, &rep);
  if (st.ok()) {
    std::cout << "OK uid=" << rep.caller_uid() << "\n";
  } else {
    std::cout << codeName(st.error_code()) << " " << st.error_message() << "\n";
  }
}

template <typename Request, typename Reply, typename Call>
bool authedCall(const std::string& target, const std::string& socket, const std::string& method,
                const Request& req, Reply* rep, Call call) {
  grpc::ClientContext ctx;
  drover::rpc::ClientOptions opts{target, socket, 10000};
  auto prepared = drover::rpc::prepareCall(ctx, "/drover.v1.Controller/" + method, req, opts);
  if (!prepared) {
    std::cout << "OTHER " << prepared.error() << "\n";
    return false;
  }
  grpc::Status st = call(ctx, req, rep);
  if (!st.ok()) {
    std::cout << codeName(st.error_code()) << " " << st.error_message() << "\n";
    return false;
  }
  return true;
}

int jobCall(drover::v1::Controller::Stub& stub, const std::string& target, const std::string& mode,
            const std::string& socket, const std::string& arg1, const std::string& arg2) {
  using namespace drover::v1;
  if (mode == "submit") {
    SubmitJobRequest req;
    auto* spec = req.mutable_spec();
    spec->set_batch(true);
    spec->set_work_dir(arg1);
    spec->set_script("#!/bin/sh\n" + arg2 + "\n");
    spec->set_name("rawcall");
    spec->set_export_mode("NONE");
    SubmitJobReply rep;
    if (!authedCall(target, socket, "SubmitJob", req, &rep,
                    [&](grpc::ClientContext& c, const SubmitJobRequest& r, SubmitJobReply* o) {
                      return stub.SubmitJob(&c, r, o);
                    })) {
      return 1;
    }
    std::cout << "OK " << rep.job_id() << "\n";
    return 0;
  }
  if (mode == "job") {
    GetJobsRequest req;
    req.add_job_ids(arg1);
    req.set_include_finished(true);
    GetJobsReply rep;
    if (!authedCall(target, socket, "GetJobs", req, &rep,
                    [&](grpc::ClientContext& c, const GetJobsRequest& r, GetJobsReply* o) {
                      return stub.GetJobs(&c, r, o);
                    })) {
      return 1;
    }
    if (rep.jobs_size() != 1) {
      std::cout << "NOT_FOUND " << rep.jobs_size() << " jobs\n";
      return 1;
    }
    const auto& j = rep.jobs(0);
    std::cout << "OK " << JobState_Name(j.state()) << " " << j.exit_code() << ":"
              << j.exit_signal() << "\n";
    return 0;
  }
  if (mode == "cancel") {
    CancelJobsRequest req;
    req.add_job_ids(arg1);
    CancelJobsReply rep;
    if (!authedCall(target, socket, "CancelJobs", req, &rep,
                    [&](grpc::ClientContext& c, const CancelJobsRequest& r, CancelJobsReply* o) {
                      return stub.CancelJobs(&c, r, o);
                    })) {
      return 1;
    }
    std::cout << "OK " << rep.results_size() << "\n";
    return 0;
  }
  std::cerr << "unknown mode " << mode << "\n";
  return 2;
}

int frameCall(const std::string& target, const std::string& socket, const std::string& method) {
  namespace pb = google::protobuf;
  const std::string full =
      "drover.v1." + (method.find('.') == std::string::npos ? "Controller." + method : method);
  // Links agent_control.proto's descriptors in, so the pool knows AgentControl's methods.
  (void)drover::v1::RegisterRequest::descriptor();
  const pb::MethodDescriptor* m = pb::DescriptorPool::generated_pool()->FindMethodByName(full);
  if (m == nullptr) {
    std::cerr << "no method " << full << "\n";
    return 2;
  }
  auto* factory = pb::MessageFactory::generated_factory();
  std::unique_ptr<pb::Message> req(factory->GetPrototype(m->input_type())->New());
  std::unique_ptr<pb::Message> rep(factory->GetPrototype(m->output_type())->New());
  std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  if (!pb::TextFormat::ParseFromString(text, req.get())) {
    std::cerr << "cannot parse the request as " << m->input_type()->full_name() << "\n";
    return 2;
  }
  drover::wire::ClientOptions opts;
  auto colon = target.rfind(':');
  opts.host = target.substr(0, colon);
  opts.port = static_cast<std::uint16_t>(std::stoi(target.substr(colon + 1)));
  opts.munge_socket = socket;
  opts.timeout_ms = 60000;
  drover::wire::CallError error;
  const std::string path = "/" + m->service()->full_name() + "/" + m->name();
  if (!drover::wire::call(opts, path, *req, rep.get(), &error)) {
    std::cout << error.code << " " << error.message << "\n";
    return 1;
  }
  std::string out;
  pb::TextFormat::PrintToString(*rep, &out);
  std::cout << "OK\n" << out;
  return 0;
}

// One daemon RPC over gRPC, as the daemons call each other (a MUNGE credential bound to the
// request), the request in text format on stdin; prints "OK" or "<GRPC_CODE> <message>".
// `Call` is the stub's method (&Stub::SignalStep), `path` its full name for the binding.
template <typename Service, typename Request, typename Reply, typename Call>
int daemonCall(const std::string& target, const std::string& socket, const char* path,
               Call call) {
  namespace pb = google::protobuf;
  Request req;
  std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  if (!pb::TextFormat::ParseFromString(text, &req)) {
    std::cerr << "cannot parse the request as " << Request::descriptor()->full_name() << "\n";
    return 2;
  }
  grpc::ClientContext ctx;
  drover::rpc::ClientOptions opts{target, socket, 10000};
  auto prepared = drover::rpc::prepareCall(ctx, path, req, opts);
  if (!prepared) {
    std::cout << "OTHER " << prepared.error() << "\n";
    return 1;
  }
  Reply rep;
  auto stub = Service::NewStub(drover::rpc::makeChannel(target));
  const grpc::Status st = ((*stub).*call)(&ctx, req, &rep);
  if (!st.ok()) {
    std::cout << codeName(st.error_code()) << " " << st.error_message() << "\n";
    return 1;
  }
  std::cout << "OK\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: drover-e2e-rawcall HOST:PORT none|forged|replay|rebind [MUNGE_SOCKET]\n";
    return 2;
  }
  const std::string target = argv[1];
  const std::string mode = argv[2];
  const std::string socket = argc > 3 ? argv[3] : "";
  auto stub = drover::v1::Controller::NewStub(drover::rpc::makeChannel(target));
  const std::string method = "/drover.v1.Controller/Ping";
  if (mode == "none") {
    ping(*stub, nullptr);
  } else if (mode == "forged") {
    const std::string forged = "MUNGE:AwQDAACforgedforgedforgedforgedforgedforgedforged:";
    ping(*stub, &forged);
  } else if (mode == "replay" || mode == "rebind") {
    drover::v1::PingRequest req;
    std::string payload = drover::auth::bindingPayload(method, req);
    if (mode == "rebind") {
      drover::v1::GetNodesRequest other;
      other.add_names("node1");
      payload = drover::auth::bindingPayload("/drover.v1.Controller/GetNodes", other);
    }
    auto cred = drover::auth::encodeCredential(payload, socket);
    if (!cred) {
      std::cerr << "cannot encode: " << cred.error() << "\n";
      return 1;
    }
    ping(*stub, &*cred);
    if (mode == "replay") ping(*stub, &*cred);
  } else if (mode == "frame") {
    if (argc < 5) {
      std::cerr << "usage: drover-e2e-rawcall HOST:CLI_PORT frame MUNGE_SOCKET METHOD\n";
      return 2;
    }
    return frameCall(target, socket, argv[4]);
  } else if (mode == "signal-step") {
    // Agent.SignalStep to a node's droverd, as the controller sends it.
    return daemonCall<drover::v1::Agent, drover::v1::SignalStepRequest,
                      drover::v1::SignalStepReply>(target, socket, "/drover.v1.Agent/SignalStep",
                                                   &drover::v1::Agent::Stub::SignalStep);
  } else if (mode == "launch-step") {
    // Agent.LaunchStep to a node's droverd, as the controller sends it again when the first
    // attempt got no answer in time.
    return daemonCall<drover::v1::Agent, drover::v1::LaunchStepRequest,
                      drover::v1::LaunchStepReply>(target, socket, "/drover.v1.Agent/LaunchStep",
                                                   &drover::v1::Agent::Stub::LaunchStep);
  } else if (mode == "register") {
    // AgentControl.Register to the controller, as a (re)starting droverd sends it: the
    // controller reconciles the node's jobs, while the real agent may be stopped.
    return daemonCall<drover::v1::AgentControl, drover::v1::RegisterRequest,
                      drover::v1::RegisterReply>(target, socket,
                                                 "/drover.v1.AgentControl/Register",
                                                 &drover::v1::AgentControl::Stub::Register);
  } else if (mode == "submit" || mode == "job" || mode == "cancel") {
    if (argc < 5) {
      std::cerr << "usage: drover-e2e-rawcall HOST:PORT submit|job|cancel MUNGE_SOCKET ARG...\n";
      return 2;
    }
    return jobCall(*stub, target, mode, socket, argv[4], argc > 5 ? argv[5] : "");
  } else {
    std::cerr << "unknown mode " << mode << "\n";
    return 2;
  }
  return 0;
}
