// SPDX-License-Identifier: Apache-2.0
#pragma once

// A scenario: the clients, the backends and what happens to them over time, as an operator writes
// it in a .scn file (the format is documented byte by byte in docs/scenarios.md).

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/balance/subsetting.h"
#include "core/base/random.h"

namespace railyard::sim {

using Duration = std::chrono::nanoseconds;

// A random quantity: a service time in nanoseconds, or a unitless query cost.
struct Distribution {
  enum class Kind {
    kConstant,     // a
    kExponential,  // mean a
    kLogNormal,    // median a, sigma b (of the underlying normal)
    kUniform,      // [a, b)
    kLogUniform,   // log-uniform on [a, b): every factor of ten equally likely
  };
  Kind kind = Kind::kConstant;
  double a = 1;
  double b = 0;

  double Sample(base::Rng& rng) const;
  double Mean() const;
  bool operator==(const Distribution&) const = default;
};

struct ClientGroup {
  uint32_t count = 1;
  double rate_per_s = 100;                     // Open-loop Poisson arrivals, per client.
  uint32_t pool = 16;                          // Connections per client.
  Duration timeout = std::chrono::seconds(1);  // A request's deadline, retries included.
  Duration attempt_timeout{0};                 // One attempt's; 0: the request's deadline.
  uint32_t max_retries = 2;                    // Extra attempts per request.
  double retry_budget = 0.2;                   // Retries per recent request, across the client.
  balance::SubsetMode subset = balance::SubsetMode::kNone;
  uint32_t subset_size = 0;  // 0 with a subset mode: every backend.
  Distribution cost;         // Multiplies the service time of each request (default 1).
  bool operator==(const ClientGroup&) const = default;
};

struct BackendGroup {
  uint32_t count = 1;
  Distribution service{Distribution::Kind::kExponential, 5e6, 0};  // Nanoseconds.
  uint32_t capacity = 8;  // Requests served at once; more wait in a FIFO queue.
  double speed = 1;       // Service times are divided by this (0.5: half speed).
  double contention =
      0;  // Service time x (1 + contention x load), load = (serving+queued)/capacity.
  bool operator==(const BackendGroup&) const = default;
};

// Which backends an event applies to: [first, last], or every backend.
struct Selector {
  bool all = true;
  uint32_t first = 0;
  uint32_t last = 0;
  bool operator==(const Selector&) const = default;
};

// Each action's name, syntax and arguments are one row of scenario.cc's kActions table, in this
// order; kRate stays last.
enum class Action {
  kUp,          // Back to health as declared (clears every fault, speed and contention).
  kDown,        // Process gone: connections reset, connects refused, failures are fast.
  kHang,        // Accepts connections and requests, never answers.
  kFlaky,       // value: probability that a request is answered at once with UNAVAILABLE
                // (retryable: the client drops that connection, as rpc::Client does).
  kErrors,      // value: probability of a fast "I'm unhealthy" error answer on a connection the
                // client keeps (the SRE chapter's sinkhole).
  kFlapping,    // Down for ~d1, up for ~d2, alternating (each period uniform in 0.5..1.5x).
  kSpeed,       // value: speed factor.
  kContention,  // value: contention factor.
  kLameDuck,    // Finishes what it has, refuses new connections and requests.
  kReplace,     // Rolling restart step: lame duck for d1, down for d2, then up.
  kNetwork,     // d1: the round trip every attempt pays (network degradation); no selector.
  kRate,        // value: new request rate of every client.
};

struct Event {
  Duration at{0};
  Action action = Action::kUp;
  Selector backends;
  Duration stagger{0};  // The i-th selected backend's event happens at at + i x stagger.
  double value = 0;
  Duration d1{0};
  Duration d2{0};
  int line = 0;  // Where it was written, for messages.
  bool operator==(const Event& other) const {
    return at == other.at && action == other.action && backends == other.backends &&
           stagger == other.stagger && value == other.value && d1 == other.d1 && d2 == other.d2;
  }
};

struct Scenario {
  std::string name;
  std::string description;
  Duration duration = std::chrono::seconds(60);
  uint64_t seed = 1;
  Duration network_rtt = std::chrono::microseconds(200);
  Duration connect_time = std::chrono::milliseconds(1);
  uint32_t max_active = 100;  // Flow control: active requests per backend per client.
  bool count_errors_as_active = true;
  std::vector<ClientGroup> clients;
  std::vector<BackendGroup> backends;
  std::vector<Event> events;  // In the order written; the simulator orders them by time.

  uint32_t client_count() const;
  uint32_t backend_count() const;
  bool operator==(const Scenario& other) const {
    return name == other.name && description == other.description && duration == other.duration &&
           seed == other.seed && network_rtt == other.network_rtt &&
           connect_time == other.connect_time && max_active == other.max_active &&
           count_errors_as_active == other.count_errors_as_active && clients == other.clients &&
           backends == other.backends && events == other.events;
  }
};

struct ParseError {
  int line = 0;  // 1-based; 0 when the error is about the file as a whole.
  std::string message;
  std::string ToString() const;  // "line 7: ..."
};

// Parses a scenario from its text. Pure: no I/O, never throws, never crashes on any input; on
// failure returns false with `error` naming the first bad line.
bool ParseScenario(std::string_view text, Scenario* scenario, ParseError* error);

// Writes `scenario` in the canonical form of the format (ParseScenario gives it back).
std::string FormatScenario(const Scenario& scenario);

// Reads and parses a file. The error reads "PATH:LINE: message". A scenario without a `name`
// line is named after the file (without folders and extension).
bool LoadScenarioFile(const std::string& path, Scenario* scenario, std::string* error);

// "250us", "1.5s", "2m": the shortest exact form the parser reads back.
std::string FormatDuration(Duration d);
std::string_view ActionName(Action action);

// What follows an action's name: in a scenario file, and in the simulator's recorded events.
enum class ActionArgs {
  kNone,
  kValue,         // Event::value
  kDuration,      // Event::d1
  kTwoDurations,  // Event::d1 and Event::d2
};
ActionArgs ActionArguments(Action action);

}  // namespace railyard::sim
