// drover-stepd's end-of-step report: the address it is given, the event it builds, and one
// real exchange with a frame-transport server (the controller's cli_port) and a real munged.
#include "stepd/step_report.h"

#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <thread>
#include <vector>

#include "munged_process.h"
#include "wire/frame_server.h"
#include "wire/method_table.h"

namespace drover::stepd {
namespace {

struct TargetCase {
  std::string text;
  bool ok;
  std::string host;
  std::uint16_t port;
};

TEST(StepReportTest, ReportTargetParsesHostAndPort) {
  const std::vector<TargetCase> cases = {
      {"127.0.0.1:6818", true, "127.0.0.1", 6818},
      {"[::1]:7819", true, "::1", 7819},
      {"ctl.example.org:1", true, "ctl.example.org", 1},
      {"127.0.0.1", false, "", 0},        // no port
      {"127.0.0.1:", false, "", 0},
      {":6818", false, "", 0},            // no host
      {"127.0.0.1:0", false, "", 0},
      {"127.0.0.1:65536", false, "", 0},
      {"127.0.0.1:68a", false, "", 0},
  };
  for (const auto& c : cases) {
    auto target = reportTarget(c.text, "/run/munge.socket");
    ASSERT_EQ(target.ok(), c.ok) << c.text;
    if (!c.ok) {
      EXPECT_NE(target.error().find("is not HOST:PORT"), std::string::npos) << target.error();
      continue;
    }
    EXPECT_EQ(target->host, c.host) << c.text;
    EXPECT_EQ(target->port, c.port) << c.text;
    EXPECT_EQ(target->munge_socket, "/run/munge.socket");
  }
}

TEST(StepReportTest, EventCarriesTheOutcome) {
  drover::v1::LaunchStepRequest req;
  req.mutable_step()->set_job_id(7);
  req.mutable_step()->set_step_id(kBatchStepId);
  StepOutcome out;
  out.started = true;
  out.exit_code = 3;
  out.exit_signal = 9;
  out.timed_out = true;
  out.user_cpu_ms = 11;
  out.max_rss_kb = 512;
  out.start_time = 100;
  out.end_time = 160;
  auto event = stepEvent(req, out, "node1");
  EXPECT_EQ(event.step().job_id(), 7u);
  EXPECT_EQ(event.step().step_id(), kBatchStepId);
  EXPECT_EQ(event.node(), "node1");
  EXPECT_EQ(event.kind(), drover::v1::StepEventRequest::FINISHED);
  EXPECT_EQ(event.exit_code(), 3);
  EXPECT_EQ(event.exit_signal(), 9);
  EXPECT_TRUE(event.timed_out());
  EXPECT_EQ(event.user_cpu_ms(), 11u);
  EXPECT_EQ(event.max_rss_kb(), 512u);
  EXPECT_EQ(event.end_time(), 160);

  out.started = false;
  out.start_error = "could not open output file";
  event = stepEvent(req, out, "node1");
  EXPECT_EQ(event.kind(), drover::v1::StepEventRequest::FAILED_TO_START);
  EXPECT_EQ(event.error(), "could not open output file");
}

// The controller answers the first try with UNAVAILABLE (its commit failed); the supervisor
// tries again and the second is acknowledged.
TEST(StepReportTest, ReportIsRetriedUntilAcknowledged) {
  auto munged = drover::testing::MungedProcess::start();
  ASSERT_TRUE(munged.ok()) << munged.error();
  boost::asio::io_context io;
  auto work = boost::asio::make_work_guard(io);
  wire::MethodTable table((*munged)->socket());
  std::vector<drover::v1::StepEventRequest> seen;
  unsigned caller_uid = 12345;
  std::function<void(const rpc::Caller&, const drover::v1::StepEventRequest&,
                     wire::Reply_<drover::v1::StepEventReply>)>
      handler = [&](const rpc::Caller& caller, const drover::v1::StepEventRequest& req,
                    wire::Reply_<drover::v1::StepEventReply> done) {
        seen.push_back(req);
        caller_uid = caller.uid;
        if (seen.size() == 1) {
          done({14, "job table commit failed"}, {});
        } else {
          done(wire::Outcome::ok(), {});
        }
      };
  table.add(kStepEventMethod, std::move(handler));
  wire::FrameServer server(io, "127.0.0.1", 0,
                           [&](drover::v1::FrameRequest req, wire::Responder respond) {
                             table.dispatch(std::move(req), std::move(respond));
                           });
  std::thread loop([&] { io.run(); });

  auto target = reportTarget("127.0.0.1:" + std::to_string(server.port()), (*munged)->socket());
  ASSERT_TRUE(target.ok()) << target.error();
  drover::v1::StepEventRequest event;
  event.mutable_step()->set_job_id(42);
  event.set_exit_code(1);
  const bool acknowledged = reportStepEvent(event, *target, std::chrono::seconds(20));

  server.stop();
  work.reset();
  io.stop();
  loop.join();
  EXPECT_TRUE(acknowledged);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1].step().job_id(), 42u);
  EXPECT_EQ(seen[1].exit_code(), 1);
  EXPECT_EQ(caller_uid, getuid());   // the credential names the supervisor's user
}

TEST(StepReportTest, ReportGivesUpAfterItsDeadline) {
  // Nothing listens on this port (bound and closed right away by a FrameServer).
  boost::asio::io_context io;
  std::uint16_t port = 0;
  {
    wire::FrameServer server(io, "127.0.0.1", 0, [](drover::v1::FrameRequest, wire::Responder) {});
    port = server.port();
    server.stop();
  }
  auto target = reportTarget("127.0.0.1:" + std::to_string(port), "");
  ASSERT_TRUE(target.ok());
  drover::v1::StepEventRequest event;
  EXPECT_FALSE(reportStepEvent(event, *target, std::chrono::seconds(0)));
}

}  // namespace
}  // namespace drover::stepd
