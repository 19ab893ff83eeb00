/// @file time_split.cpp
/// The random and the time-aware test splits and the leakage counts (see time_split.h).
#include "data/time_split.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

#include "data/random_split.h"
#include "data/text_reader.h"
#include "symgnn/error.h"
#include "util/text.h"

namespace symgnn::data {

namespace {

/// y-m-d of `days` since 1970-01-01 (H. Hinnant's civil_from_days, the inverse of the date
/// parse of to_time).
void civil_from_days(int64_t days, int64_t& y, int64_t& m, int64_t& d) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = yoe + era * 400 + (m <= 2);
}

/// "1998-03-08 10:12:55 UTC (unix 889351975)": the date a reader checks and the number the
/// data hold.
std::string time_text(double t) {
  if (!std::isfinite(t) || std::abs(t) > 1e15) return fixed(t, 0);
  const auto s = static_cast<int64_t>(std::floor(t));
  const int64_t days = (s >= 0 ? s : s - 86399) / 86400, sec = s - days * 86400;
  int64_t y = 0, m = 0, d = 0;
  civil_from_days(days, y, m, d);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lld %02lld:%02lld:%02lld UTC (unix %s)",
                static_cast<long long>(y), static_cast<long long>(m), static_cast<long long>(d),
                static_cast<long long>(sec / 3600), static_cast<long long>(sec / 60 % 60),
                static_cast<long long>(sec % 60),
                t == std::floor(t) ? fixed(t, 0).c_str() : fixed(t, 3).c_str());
  return buf;
}

/// "312 (3.1 %)".
std::string share_text(int64_t part, int64_t whole) {
  return std::to_string(part) + " (" +
         fixed(whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0, 1) + " %)";
}

/// The time at or after which the latest round(fraction x n) of `times` lie, at least one
/// of them and at most n - 1 (n >= 2); NaN when there are none.
double latest_fraction_cutoff(std::vector<double> times, double fraction) {
  const size_t n = times.size();
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  auto count = static_cast<size_t>(std::llround(std::max(0.0, fraction) * static_cast<double>(n)));
  count = std::max<size_t>(count, 1);
  if (n >= 2) count = std::min(count, n - 1);
  const size_t k = n - std::min(count, n);
  std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(k), times.end());
  return times[k];
}

}  // namespace

bool is_time_split(const std::string& split) {
  return split == "temporal" || split == "leave_last_out";
}

double temporal_cutoff(const std::vector<double>& times, const DataConfig& cfg) {
  if (!cfg.split_time.empty()) {
    double t = 0;
    if (!to_time(cfg.split_time, t))
      throw ConfigError("data.split_time = " + quote(cfg.split_time) +
                        ": expected unix seconds or a UTC date YYYY-MM-DD[THH:MM:SS]");
    return t;
  }
  return latest_fraction_cutoff(times, cfg.test_fraction);
}

std::vector<char> last_n_of_each_user(const std::vector<int64_t>& user, const std::vector<double>& times,
                                      int64_t n, int64_t& kept) {
  kept = 0;
  std::vector<size_t> order(user.size());
  std::iota(order.begin(), order.end(), size_t{0});
  // Stable: equal times keep their order in the list, so the later line is the later rating.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return user[a] != user[b] ? user[a] < user[b] : times[a] < times[b];
  });
  std::vector<char> last(user.size(), 0);
  for (size_t begin = 0; begin < order.size();) {
    size_t end = begin + 1;
    while (end < order.size() && user[order[end]] == user[order[begin]]) ++end;
    const auto count = static_cast<int64_t>(end - begin);
    if (count <= n)
      ++kept;
    else
      for (size_t k = end - static_cast<size_t>(n); k < end; ++k) last[order[k]] = 1;
    begin = end;
  }
  return last;
}

void count_leakage(const RatingList& all, const std::vector<double>& times, const std::vector<char>& is_test,
                   TimeSplitReport& report) {
  int64_t users = 0, items = 0;
  for (size_t k = 0; k < all.size(); ++k)
    users = std::max(users, all.user[k] + 1), items = std::max(items, all.item[k] + 1);
  std::vector<char> user_trained(static_cast<size_t>(users), 0), item_trained(static_cast<size_t>(items), 0);
  // Each user's earliest test time, for the training ratings later than another user's.
  constexpr double kNone = std::numeric_limits<double>::infinity();
  std::vector<double> first_test(static_cast<size_t>(users), kNone);
  report.training_ratings = report.test_ratings = 0;
  for (size_t k = 0; k < all.size(); ++k) {
    const auto u = static_cast<size_t>(all.user[k]);
    if (is_test[k]) {
      ++report.test_ratings;
      first_test[u] = std::min(first_test[u], times[k]);
    } else {
      ++report.training_ratings;
      user_trained[u] = 1;
      item_trained[static_cast<size_t>(all.item[k])] = 1;
    }
  }
  // The earliest test time of all (its user's) and the earliest of any other user: a
  // training rating of user u leaks where it is later than the earliest of the others'.
  double first = kNone, second = kNone;
  size_t first_user = 0;
  for (size_t u = 0; u < first_test.size(); ++u) {
    if (first_test[u] < first) {
      second = first, first = first_test[u], first_user = u;
    } else if (first_test[u] < second) {
      second = first_test[u];
    }
  }
  std::vector<char> item_counted(static_cast<size_t>(items), 0);
  report.cold_item_ratings = report.cold_items = report.cold_user_ratings = report.later_training = 0;
  for (size_t k = 0; k < all.size(); ++k) {
    const auto u = static_cast<size_t>(all.user[k]), i = static_cast<size_t>(all.item[k]);
    if (is_test[k]) {
      if (!item_trained[i]) {
        ++report.cold_item_ratings;
        if (!item_counted[i]) item_counted[i] = 1, ++report.cold_items;
      }
      if (!user_trained[u]) ++report.cold_user_ratings;
    } else if (times[k] > (u == first_user ? second : first)) {
      ++report.later_training;
    }
  }
}

void split_ratings(const RatingList& all, const std::vector<double>& times, const DataConfig& cfg,
                   const std::string& where, Dataset& ds) {
  if (!is_time_split(cfg.split)) {
    random_test_split(all, cfg.test_fraction, static_cast<uint64_t>(cfg.split_seed), ds.train, ds.test);
    ds.test_drawn = true;
    return;
  }
  if (times.empty())
    throw DataError(where + ": data.split = " + cfg.split +
                    " needs the ratings' times, and these ratings have none (a ratings CSV gives them in a "
                    "4th column, e.g. under a header user,item,rating,timestamp)");
  if (times.size() != all.size()) throw DataError(where + ": the ratings and their times differ in number");
  TimeSplitReport report;
  report.split = cfg.split;
  std::vector<char> is_test;
  if (cfg.split == "temporal") {
    report.cutoff = temporal_cutoff(times, cfg);
    is_test.resize(all.size());
    for (size_t k = 0; k < all.size(); ++k) is_test[k] = times[k] >= report.cutoff;
  } else {
    report.last_n = cfg.leave_last_n;
    is_test = last_n_of_each_user(all.user, times, cfg.leave_last_n, report.users_kept);
  }
  count_leakage(all, times, is_test, report);
  if (cfg.split == "temporal" && !all.empty()) {
    const auto [lo, hi] = std::minmax_element(times.begin(), times.end());
    if (report.test_ratings == 0)
      throw DataError(where + ": no rating at or after the cut-off " + time_text(report.cutoff) +
                      " of data.split = temporal (the latest is " + time_text(*hi) + ")");
    if (report.training_ratings == 0)
      throw DataError(where + ": no rating before the cut-off " + time_text(report.cutoff) +
                      " of data.split = temporal (the earliest is " + time_text(*lo) + ")");
  }

  ds.train = all;
  ds.test = RatingList{};
  ds.validation = RatingList{};
  std::vector<double> train_times = times;
  move_marked(ds.train, is_test, ds.test, &train_times);
  // The validation ratings are carved by time as the test ratings were, so that choosing on
  // them (epochs, lambda, a ranker) sees the future as the test does: the latest training
  // ratings (temporal), or each user's last n training ratings (leave_last_out).
  if (cfg.val_fraction > 0 && !ds.train.empty()) {
    std::vector<char> is_val;
    if (cfg.split == "temporal") {
      const auto n_val = std::llround(cfg.val_fraction * static_cast<double>(ds.train.size()));
      if (n_val > 0) {
        const double cut = latest_fraction_cutoff(train_times, cfg.val_fraction);
        is_val.resize(ds.train.size());
        size_t taken = 0;
        for (size_t k = 0; k < ds.train.size(); ++k) {
          is_val[k] = train_times[k] >= cut;
          taken += is_val[k] ? 1 : 0;
        }
        if (taken == ds.train.size())  // all at one time: the validation keeps what is later
          for (size_t k = 0; k < ds.train.size(); ++k) is_val[k] = train_times[k] > cut;
      }
    } else {
      int64_t kept = 0;
      is_val = last_n_of_each_user(ds.train.user, train_times, cfg.leave_last_n, kept);
    }
    if (!is_val.empty()) move_marked(ds.train, is_val, ds.validation, &train_times);
  }
  ds.time_split = report;
}

std::string describe(const TimeSplitReport& r) {
  if (r.split.empty()) return "";
  std::string out = "split " + r.split;
  if (r.split == "temporal")
    out += " at " + time_text(r.cutoff);
  else
    out += " (each user's last " + std::to_string(r.last_n) + "; " + std::to_string(r.users_kept) +
           " users with no more kept in training)";
  out += ": " + std::to_string(r.test_ratings) + " test ratings, of them " +
         share_text(r.cold_item_ratings, r.test_ratings) + " of " + std::to_string(r.cold_items) +
         " items without a training rating and " + share_text(r.cold_user_ratings, r.test_ratings) +
         " of users without one; training ratings later than another user's test rating: " +
         share_text(r.later_training, r.training_ratings);
  return out;
}

}  // namespace symgnn::data
