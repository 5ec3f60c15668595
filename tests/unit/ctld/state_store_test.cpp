#include "ctld/state_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <random>

namespace drover::ctld {
namespace {

class StateStoreTest : public ::testing::Test {
 protected:
  StateStoreTest() {
    dir_ = std::filesystem::temp_directory_path() /
           ("drover-store-test-" + std::to_string(std::random_device{}()));
  }
  ~StateStoreTest() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(StateStoreTest, CreatesDirectoryDatabaseInWalMode) {
  auto store = StateStore::open((dir_ / "state").string());
  ASSERT_TRUE(store) << store.error();
  EXPECT_TRUE(std::filesystem::exists(dir_ / "state" / "ctld.db"));
  EXPECT_EQ((*store)->schemaVersion(), 1);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2((*store)->handle(), "PRAGMA journal_mode", -1, &st, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "wal");
  sqlite3_finalize(st);
}

TEST_F(StateStoreTest, AdminStatesPersistAcrossReopen) {
  {
    auto store = StateStore::open(dir_.string());
    ASSERT_TRUE(store) << store.error();
    AdminState a{"node1", true, false, "bad dimm", "root", 100};
    AdminState b{"node2", false, true, "maintenance", "alice", 200};
    ASSERT_TRUE((*store)->saveNodeAdminState(a));
    ASSERT_TRUE((*store)->saveNodeAdminState(b));
    b.reason = "updated";
    ASSERT_TRUE((*store)->saveNodeAdminState(b));
    AdminState cleared{"node1", false, false, "", "", 0};
    ASSERT_TRUE((*store)->saveNodeAdminState(cleared));
  }
  auto store = StateStore::open(dir_.string());
  ASSERT_TRUE(store) << store.error();
  EXPECT_EQ((*store)->schemaVersion(), 1) << "migrations run once";
  auto states = (*store)->loadNodeAdminStates();
  ASSERT_TRUE(states) << states.error();
  ASSERT_EQ(states->size(), 1u);
  EXPECT_EQ((*states)[0].name, "node2");
  EXPECT_TRUE((*states)[0].drain);
  EXPECT_EQ((*states)[0].reason, "updated");
  EXPECT_EQ((*states)[0].reason_user, "alice");
  EXPECT_EQ((*states)[0].reason_time, 200);
}

TEST_F(StateStoreTest, UnwritableDirectoryIsAnError) {
  std::filesystem::create_directories(dir_);
  std::FILE* f = std::fopen((dir_ / "file").c_str(), "w");
  std::fclose(f);
  auto store = StateStore::open((dir_ / "file" / "sub").string());
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().find("state directory"), std::string::npos);
}

}  // namespace
}  // namespace drover::ctld
