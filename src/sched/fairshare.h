#pragma once
// Fair-share from decayed historical usage over an account tree (account -> users, shares),
// as Slurm's classic multifactor: factor = 2^(-usage / shares), both normalised to the whole
// tree. Usage decays with a half-life, so old work counts less. Time is always a parameter.
#include <cstdint>
#include <map>
#include <string>

namespace drover::sched {

class FairShareTree {
 public:
  explicit FairShareTree(int64_t halfLifeS) : halfLifeS_(halfLifeS) {}

  // An account under `parent` ("" = root).
  void addAccount(const std::string& account, const std::string& parent, int shares);
  void addUser(const std::string& account, const std::string& user, int shares);
  // `amount` (e.g. CPU-seconds) charged to the user's association at time `at`.
  void recordUsage(const std::string& account, const std::string& user, double amount,
                   int64_t at);
  // Decayed usage of the association at `now`.
  double usage(const std::string& account, const std::string& user, int64_t now) const;
  // The association's share of the whole tree: its shares over its siblings', times its
  // account's normalised share, up to the root.
  double normalizedShares(const std::string& account, const std::string& user) const;
  // Fair-share factor in [0, 1]: 1 for no usage, 0.5 when usage equals shares.
  double factor(const std::string& account, const std::string& user, int64_t now) const;

 private:
  struct Usage {
    double value = 0;
    int64_t at = 0;
  };
  double decayed(const Usage& u, int64_t now) const;
  double accountShare(const std::string& account) const;

  int64_t halfLifeS_;
  std::map<std::string, std::pair<std::string, int>> accounts_;  // name -> (parent, shares)
  std::map<std::pair<std::string, std::string>, int> users_;     // (account, user) -> shares
  std::map<std::pair<std::string, std::string>, Usage> usage_;
};

}  // namespace drover::sched
