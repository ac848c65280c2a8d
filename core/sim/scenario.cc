// SPDX-License-Identifier: Apache-2.0
#include "core/sim/scenario.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <vector>

namespace railyard::sim {

namespace {

// Bounds that keep any accepted scenario runnable (no overflow, bounded memory).
constexpr uint64_t kMaxClients = 10000;
constexpr uint64_t kMaxBackends = 10000;
constexpr uint64_t kMaxClientBackendPairs = 20'000'000;
constexpr uint64_t kMaxPool = 1024;
constexpr uint64_t kMaxCapacity = 100000;
constexpr uint64_t kMaxRetries = 7;
constexpr uint64_t kMaxEvents = 100000;
constexpr double kMaxSeconds = 1e6;  // Any duration.
constexpr double kMaxRate = 1e6;

// Thrown inside the parser only (never escapes ParseScenario).
struct Failure {
  std::string message;
};

[[noreturn]] void Fail(std::string message) { throw Failure{std::move(message)}; }

std::string Quote(std::string_view s) {
  std::string out = "'";
  for (char c : s.substr(0, 40)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (s.size() > 40) out += "...";
  return out + "'";
}

double ParseNumber(std::string_view s, std::string_view what) {
  double value = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) {
    Fail(std::string(what) + ": " + Quote(s) + " is not a number");
  }
  return value;
}

uint64_t ParseCount(std::string_view s, std::string_view what, uint64_t lo, uint64_t hi) {
  uint64_t value = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, value);
  if (ec != std::errc() || ptr != end) {
    Fail(std::string(what) + ": " + Quote(s) + " is not a whole number");
  }
  if (value < lo || value > hi) {
    Fail(std::string(what) + " must be between " + std::to_string(lo) + " and " +
         std::to_string(hi) + ", not " + std::to_string(value));
  }
  return value;
}

Duration ParseDuration(std::string_view s, std::string_view what) {
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}};
  size_t split = s.size();
  while (split > 0 && std::isalpha(static_cast<unsigned char>(s[split - 1]))) --split;
  const std::string_view unit = s.substr(split);
  for (const auto& [name, ns] : kUnits) {
    if (unit != name) continue;
    const double value = ParseNumber(s.substr(0, split), what);
    if (value < 0) Fail(std::string(what) + " cannot be negative");
    if (value * ns > kMaxSeconds * 1e9) {
      Fail(std::string(what) + " " + Quote(s) + " is longer than " +
           std::to_string(static_cast<int64_t>(kMaxSeconds)) + "s");
    }
    return Duration(static_cast<int64_t>(std::llround(value * ns)));
  }
  Fail(std::string(what) + ": " + Quote(s) +
       " needs a unit: ns, us, ms, s, m or h (e.g. 250us, 1.5s)");
}

double ParseRate(std::string_view s) {
  if (s.ends_with("/s")) s.remove_suffix(2);
  const double value = ParseNumber(s, "rate");
  if (value < 0 || value > kMaxRate) Fail("rate must be between 0/s and 1000000/s");
  return value;
}

double ParseFraction(std::string_view s, std::string_view what) {
  double value;
  if (s.ends_with("%")) {
    value = ParseNumber(s.substr(0, s.size() - 1), what) / 100;
  } else {
    value = ParseNumber(s, what);
  }
  if (value < 0 || value > 1) Fail(std::string(what) + " must be between 0 and 1 (or 0% and 100%)");
  return value;
}

double ParseBounded(std::string_view s, std::string_view what, double lo, double hi,
                    bool lo_open = false) {
  const double value = ParseNumber(s, what);
  if (value < lo || value > hi || (lo_open && value == lo)) {
    char buffer[160];
    std::snprintf(buffer, sizeof buffer, "%s must be %s %g and at most %g",
                  std::string(what).c_str(), lo_open ? "above" : "at least", lo, hi);
    Fail(buffer);
  }
  return value;
}

// A line as tokens; `pos` walks it.
class Tokens {
 public:
  explicit Tokens(std::vector<std::string_view> tokens) : tokens_(std::move(tokens)) {}
  bool done() const { return pos_ >= tokens_.size(); }
  std::string_view Next(std::string_view what) {
    if (done()) Fail("missing " + std::string(what));
    return tokens_[pos_++];
  }
  std::string_view Peek() const { return done() ? std::string_view() : tokens_[pos_]; }
  void ExpectEnd() {
    if (!done()) Fail("unexpected " + Quote(tokens_[pos_]) + " at the end of the line");
  }

 private:
  std::vector<std::string_view> tokens_;
  size_t pos_ = 0;
};

Distribution ParseDistribution(Tokens& t, bool durations, std::string_view what) {
  const std::string_view kind = t.Next(std::string(what) + " distribution");
  auto value = [&](std::string_view name) {
    const std::string full = std::string(what) + " " + std::string(name);
    const std::string_view token = t.Next(full);
    if (durations) return static_cast<double>(ParseDuration(token, full).count());
    const double v = ParseNumber(token, full);
    if (v < 0 || v > 1e9) Fail(full + " must be between 0 and 1e9");
    return v;
  };
  Distribution d;
  if (kind == "const" || kind == "constant") {
    d.kind = Distribution::Kind::kConstant;
    d.a = value("value");
  } else if (kind == "exp" || kind == "exponential") {
    d.kind = Distribution::Kind::kExponential;
    d.a = value("mean");
    if (d.a <= 0) Fail(std::string(what) + " mean must be above 0");
  } else if (kind == "lognormal") {
    d.kind = Distribution::Kind::kLogNormal;
    d.a = value("median");
    if (d.a <= 0) Fail(std::string(what) + " median must be above 0");
    d.b = ParseBounded(t.Next(std::string(what) + " sigma"), "sigma", 0, 5);
  } else if (kind == "uniform" || kind == "loguniform") {
    d.kind = kind == "uniform" ? Distribution::Kind::kUniform : Distribution::Kind::kLogUniform;
    d.a = value("low");
    d.b = value("high");
    if (d.a > d.b) Fail(std::string(what) + " low must not exceed high");
    if (d.kind == Distribution::Kind::kLogUniform && d.a <= 0) {
      Fail(std::string(what) + " loguniform low must be above 0");
    }
  } else {
    Fail("unknown " + std::string(what) + " distribution " + Quote(kind) +
         " (expected const, exp, lognormal, uniform or loguniform)");
  }
  return d;
}

void ParseClients(Tokens& t, Scenario* s) {
  ClientGroup g;
  g.count =
      static_cast<uint32_t>(ParseCount(t.Next("client count"), "client count", 1, kMaxClients));
  while (!t.done()) {
    const std::string_view key = t.Next("key");
    if (key == "rate") {
      g.rate_per_s = ParseRate(t.Next("rate"));
    } else if (key == "pool") {
      g.pool = static_cast<uint32_t>(ParseCount(t.Next("pool size"), "pool size", 1, kMaxPool));
    } else if (key == "timeout") {
      g.timeout = ParseDuration(t.Next("timeout"), "timeout");
      if (g.timeout.count() == 0) Fail("timeout must be above 0");
    } else if (key == "attempt-timeout") {
      g.attempt_timeout = ParseDuration(t.Next("attempt timeout"), "attempt-timeout");
    } else if (key == "retries") {
      g.max_retries =
          static_cast<uint32_t>(ParseCount(t.Next("retries"), "retries", 0, kMaxRetries));
    } else if (key == "retry-budget") {
      g.retry_budget = ParseFraction(t.Next("retry budget"), "retry-budget");
    } else if (key == "subset") {
      const std::string_view mode = t.Next("subset mode");
      const std::optional<balance::SubsetMode> parsed = balance::ParseSubsetMode(mode);
      if (!parsed)
        Fail("unknown subset mode " + Quote(mode) + " (expected none, random or deterministic)");
      g.subset = *parsed;
      g.subset_size = 0;
      if (g.subset != balance::SubsetMode::kNone) {
        g.subset_size = static_cast<uint32_t>(
            ParseCount(t.Next("subset size"), "subset size", 1, kMaxBackends));
      }
    } else if (key == "cost") {
      g.cost = ParseDistribution(t, false, "cost");
    } else {
      Fail("unknown clients key " + Quote(key) +
           " (expected rate, pool, timeout, attempt-timeout, retries, retry-budget, subset or "
           "cost)");
    }
  }
  s->clients.push_back(g);
}

void ParseBackends(Tokens& t, Scenario* s) {
  BackendGroup g;
  g.count =
      static_cast<uint32_t>(ParseCount(t.Next("backend count"), "backend count", 1, kMaxBackends));
  while (!t.done()) {
    const std::string_view key = t.Next("key");
    if (key == "service") {
      g.service = ParseDistribution(t, true, "service");
    } else if (key == "capacity") {
      g.capacity =
          static_cast<uint32_t>(ParseCount(t.Next("capacity"), "capacity", 1, kMaxCapacity));
    } else if (key == "speed") {
      g.speed = ParseBounded(t.Next("speed"), "speed", 0, 1000, true);
    } else if (key == "contention") {
      g.contention = ParseBounded(t.Next("contention"), "contention", 0, 1e6);
    } else {
      Fail("unknown backends key " + Quote(key) +
           " (expected service, capacity, speed or contention)");
    }
  }
  s->backends.push_back(g);
}

Selector ParseSelector(std::string_view s) {
  Selector sel;
  if (s == "*" || s == "all") return sel;
  sel.all = false;
  const size_t dash = s.find('-');
  if (dash == std::string_view::npos) {
    sel.first = sel.last = static_cast<uint32_t>(ParseCount(s, "backend", 0, kMaxBackends - 1));
  } else {
    sel.first = static_cast<uint32_t>(
        ParseCount(s.substr(0, dash), "backend range start", 0, kMaxBackends - 1));
    sel.last = static_cast<uint32_t>(
        ParseCount(s.substr(dash + 1), "backend range end", 0, kMaxBackends - 1));
    if (sel.first > sel.last) Fail("backend range " + Quote(s) + " runs backwards");
  }
  return sel;
}

// --- The actions of an `at` line ------------------------------------------------------------
// One row per action: its name, how it is written, and how its arguments are read. Parsing,
// FormatScenario, the error messages and ActionName all read this table, so a new action is
// added here (and in the Action enum, in the same order, and to the simulator).

// Where an action's name stands on its line.
enum class ActionForm {
  kBackend,  // at TIME backend SELECTOR NAME ARGUMENTS [stagger DURATION]
  kClients,  // at TIME clients NAME ARGUMENTS
  kAlone,    // at TIME NAME ARGUMENTS (the whole cluster)
};

struct ActionSpec {
  Action action;
  std::string_view name;
  ActionForm form;
  ActionArgs args;
  std::string_view value_unit;         // Written after the value ("/s"); the parser accepts it.
  void (*parse)(Tokens& t, Event* e);  // Reads the arguments; null: there are none.
};

constexpr ActionSpec kActions[] = {
    {Action::kUp, "up", ActionForm::kBackend, ActionArgs::kNone, "", nullptr},
    {Action::kDown, "down", ActionForm::kBackend, ActionArgs::kNone, "", nullptr},
    {Action::kHang, "hang", ActionForm::kBackend, ActionArgs::kNone, "", nullptr},
    {Action::kFlaky, "flaky", ActionForm::kBackend, ActionArgs::kValue, "",
     [](Tokens& t, Event* e) {
       e->value = ParseFraction(t.Next("failure probability"), "flaky probability");
     }},
    {Action::kErrors, "errors", ActionForm::kBackend, ActionArgs::kValue, "",
     [](Tokens& t, Event* e) {
       e->value = ParseFraction(t.Next("error probability"), "errors probability");
     }},
    {Action::kFlapping, "flapping", ActionForm::kBackend, ActionArgs::kTwoDurations, "",
     [](Tokens& t, Event* e) {
       e->d1 = ParseDuration(t.Next("time down"), "flapping time down");
       e->d2 = ParseDuration(t.Next("time up"), "flapping time up");
       if (e->d1.count() < 1000000 || e->d2.count() < 1000000) {
         Fail("flapping periods must be at least 1ms");
       }
     }},
    {Action::kSpeed, "speed", ActionForm::kBackend, ActionArgs::kValue, "",
     [](Tokens& t, Event* e) { e->value = ParseBounded(t.Next("speed"), "speed", 0, 1000, true); }},
    {Action::kContention, "contention", ActionForm::kBackend, ActionArgs::kValue, "",
     [](Tokens& t, Event* e) {
       e->value = ParseBounded(t.Next("contention"), "contention", 0, 1e6);
     }},
    {Action::kLameDuck, "lame-duck", ActionForm::kBackend, ActionArgs::kNone, "", nullptr},
    {Action::kReplace, "replace", ActionForm::kBackend, ActionArgs::kTwoDurations, "",
     [](Tokens& t, Event* e) {
       e->d1 = ParseDuration(t.Next("lame duck time"), "replace lame duck time");
       e->d2 = ParseDuration(t.Next("down time"), "replace down time");
     }},
    {Action::kNetwork, "network", ActionForm::kAlone, ActionArgs::kDuration, "",
     [](Tokens& t, Event* e) {
       e->d1 = ParseDuration(t.Next("round trip"), "network round trip");
     }},
    {Action::kRate, "rate", ActionForm::kClients, ActionArgs::kValue, "/s",
     [](Tokens& t, Event* e) { e->value = ParseRate(t.Next("rate")); }},
};

// Rows in the enum's order, one per Action (kRate is the last), so Spec can index.
consteval bool RowsFollowTheEnum() {
  for (size_t i = 0; i < std::size(kActions); ++i) {
    if (kActions[i].action != static_cast<Action>(i)) return false;
  }
  return std::size(kActions) == static_cast<size_t>(Action::kRate) + 1;
}
static_assert(RowsFollowTheEnum(), "kActions needs one row per Action, in the enum's order");

const ActionSpec& Spec(Action action) { return kActions[static_cast<size_t>(action)]; }

const ActionSpec* FindAction(ActionForm form, std::string_view name) {
  for (const ActionSpec& spec : kActions) {
    if (spec.form == form && spec.name == name) return &spec;
  }
  return nullptr;
}

// "a, b or c", optionally quoted.
std::string JoinOr(const std::vector<std::string_view>& names, bool quoted) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += quoted ? Quote(names[i]) : std::string(names[i]);
  }
  return out;
}

std::vector<std::string_view> ActionNames(ActionForm form) {
  std::vector<std::string_view> names;
  for (const ActionSpec& spec : kActions) {
    if (spec.form == form) names.push_back(spec.name);
  }
  return names;
}

// What may follow `at TIME`: "backend, network or clients".
std::string EventTargets() {
  std::vector<std::string_view> targets = {"backend"};
  for (std::string_view name : ActionNames(ActionForm::kAlone)) targets.push_back(name);
  targets.push_back("clients");
  return JoinOr(targets, false);
}

// The action after `at TIME` and its target, with e->backends set for a backend action.
const ActionSpec& ParseActionName(Tokens& t, Event* e) {
  const std::string_view target = t.Next("what the event applies to (" + EventTargets() + ")");
  if (target == "backend" || target == "backends") {
    e->backends = ParseSelector(t.Next("backend number, range a-b, or *"));
    const std::string_view name = t.Next("action");
    const ActionSpec* spec = FindAction(ActionForm::kBackend, name);
    if (!spec) {
      Fail("unknown backend action " + Quote(name) + " (expected " +
           JoinOr(ActionNames(ActionForm::kBackend), false) + ")");
    }
    return *spec;
  }
  if (target == "clients") {
    const std::string_view key = t.Next("clients key");
    const ActionSpec* spec = FindAction(ActionForm::kClients, key);
    if (!spec) {
      Fail("'at ... clients' takes only " + JoinOr(ActionNames(ActionForm::kClients), true) +
           ", not " + Quote(key));
    }
    return *spec;
  }
  const ActionSpec* spec = FindAction(ActionForm::kAlone, target);
  if (!spec) {
    Fail("'at TIME' must be followed by " + EventTargets() + ", not " + Quote(target));
  }
  return *spec;
}

void ParseAt(Tokens& t, Scenario* s, int line) {
  Event e;
  e.line = line;
  e.at = ParseDuration(t.Next("time"), "time");
  const ActionSpec& spec = ParseActionName(t, &e);
  e.action = spec.action;
  if (spec.parse) spec.parse(t, &e);
  if (spec.form == ActionForm::kBackend && !t.done()) {
    const std::string_view key = t.Next("stagger");
    if (key != "stagger")
      Fail("unexpected " + Quote(key) + " (only 'stagger DURATION' may follow)");
    e.stagger = ParseDuration(t.Next("stagger"), "stagger");
  }
  t.ExpectEnd();
  if (s->events.size() >= kMaxEvents) Fail("too many events (at most 100000)");
  s->events.push_back(e);
}

// A line's words, split at spaces and tabs; fails on control bytes, and on non-ASCII text
// outside a description.
std::vector<std::string_view> SplitWords(std::string_view line) {
  for (char c : line) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 && c != '\t')
      Fail("control character in the line (byte " + std::to_string(u) + ")");
  }
  std::vector<std::string_view> tokens;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) tokens.push_back(line.substr(start, i - start));
  }
  if (!tokens.empty() && tokens[0] != "description") {
    for (std::string_view token : tokens) {
      for (char c : token) {
        if (static_cast<unsigned char>(c) >= 0x80) {
          Fail("non-ASCII text outside a comment or a description");
        }
      }
    }
  }
  return tokens;
}

void ParseLine(std::string_view line, int number, Scenario* s) {
  std::vector<std::string_view> tokens = SplitWords(line);
  if (tokens.empty()) return;
  Tokens t(std::move(tokens));
  const std::string_view directive = t.Next("directive");
  if (directive == "name") {
    const std::string_view name = t.Next("name");
    for (char c : name) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') {
        Fail("a name uses letters, digits, '-', '_' and '.' only");
      }
    }
    s->name = std::string(name);
    t.ExpectEnd();
  } else if (directive == "description") {
    const size_t at = line.find("description") + std::string_view("description").size();
    std::string_view rest = line.substr(at);
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t')) rest.remove_suffix(1);
    if (!rest.empty()) {
      if (!s->description.empty()) s->description += ' ';
      s->description += rest;
    }
  } else if (directive == "duration") {
    s->duration = ParseDuration(t.Next("duration"), "duration");
    if (s->duration < std::chrono::milliseconds(1)) Fail("duration must be at least 1ms");
    t.ExpectEnd();
  } else if (directive == "seed") {
    s->seed = ParseCount(t.Next("seed"), "seed", 0, std::numeric_limits<uint64_t>::max());
    t.ExpectEnd();
  } else if (directive == "network") {
    s->network_rtt = ParseDuration(t.Next("round trip"), "network round trip");
    t.ExpectEnd();
  } else if (directive == "connect") {
    s->connect_time = ParseDuration(t.Next("connect time"), "connect time");
    t.ExpectEnd();
  } else if (directive == "max-active") {
    s->max_active = static_cast<uint32_t>(ParseCount(t.Next("limit"), "max-active", 1, 1000000));
    t.ExpectEnd();
  } else if (directive == "count-errors") {
    const std::string_view v = t.Next("on or off");
    if (v != "on" && v != "off") Fail("count-errors takes on or off, not " + Quote(v));
    s->count_errors_as_active = v == "on";
    t.ExpectEnd();
  } else if (directive == "clients") {
    ParseClients(t, s);
  } else if (directive == "backends") {
    ParseBackends(t, s);
  } else if (directive == "at") {
    ParseAt(t, s, number);
  } else {
    Fail("unknown directive " + Quote(directive) +
         " (expected name, description, duration, seed, network, connect, max-active, "
         "count-errors, clients, backends or at)");
  }
}

// Checks what needs the whole file: totals, and events that name backends that exist.
void Validate(const Scenario& s, int* line) {
  *line = 0;
  if (s.clients.empty()) Fail("no 'clients' line: a scenario needs at least one client group");
  if (s.backends.empty()) Fail("no 'backends' line: a scenario needs at least one backend group");
  const uint64_t clients = s.client_count();
  const uint64_t backends = s.backend_count();
  if (clients > kMaxClients) Fail("more than 10000 clients in all");
  if (backends > kMaxBackends) Fail("more than 10000 backends in all");
  if (clients * backends > kMaxClientBackendPairs) Fail("clients x backends exceeds 20000000");
  for (const Event& e : s.events) {
    if (!e.backends.all && e.backends.last >= backends) {
      *line = e.line;
      Fail("backend " + std::to_string(e.backends.last) + " does not exist (backends are 0 to " +
           std::to_string(backends - 1) + ")");
    }
  }
}

std::string FormatNumber(double v) {
  char buffer[64];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, v);
    if (std::strtod(buffer, nullptr) == v) break;
  }
  return buffer;
}

std::string FormatDistribution(const Distribution& d, bool durations) {
  auto value = [&](double v) {
    return durations ? FormatDuration(Duration(static_cast<int64_t>(std::llround(v))))
                     : FormatNumber(v);
  };
  switch (d.kind) {
    case Distribution::Kind::kConstant:
      return "const " + value(d.a);
    case Distribution::Kind::kExponential:
      return "exp " + value(d.a);
    case Distribution::Kind::kLogNormal:
      return "lognormal " + value(d.a) + " " + FormatNumber(d.b);
    case Distribution::Kind::kUniform:
      return "uniform " + value(d.a) + " " + value(d.b);
    case Distribution::Kind::kLogUniform:
      return "loguniform " + value(d.a) + " " + value(d.b);
  }
  return "const 1";
}

std::string FormatSelector(const Selector& s) {
  if (s.all) return "*";
  if (s.first == s.last) return std::to_string(s.first);
  return std::to_string(s.first) + "-" + std::to_string(s.last);
}

// " 0.5", " 100/s", " 1s 2s": an action's arguments as the format writes them.
std::string FormatArguments(const ActionSpec& spec, const Event& e) {
  switch (spec.args) {
    case ActionArgs::kNone:
      return "";
    case ActionArgs::kValue:
      return " " + FormatNumber(e.value) + std::string(spec.value_unit);
    case ActionArgs::kDuration:
      return " " + FormatDuration(e.d1);
    case ActionArgs::kTwoDurations:
      return " " + FormatDuration(e.d1) + " " + FormatDuration(e.d2);
  }
  return "";
}

}  // namespace

double Distribution::Sample(base::Rng& rng) const {
  switch (kind) {
    case Kind::kConstant:
      return a;
    case Kind::kExponential:
      return rng.Exponential(a);
    case Kind::kLogNormal:
      return a * std::exp(b * rng.StandardNormal());
    case Kind::kUniform:
      return rng.Uniform(a, b);
    case Kind::kLogUniform:
      return a * std::exp(std::log(b / a) * rng.Uniform());
  }
  return a;
}

double Distribution::Mean() const {
  switch (kind) {
    case Kind::kConstant:
    case Kind::kExponential:
      return a;
    case Kind::kLogNormal:
      return a * std::exp(b * b / 2);
    case Kind::kUniform:
      return (a + b) / 2;
    case Kind::kLogUniform:
      return a == b ? a : (b - a) / std::log(b / a);
  }
  return a;
}

uint32_t Scenario::client_count() const {
  uint64_t n = 0;
  for (const ClientGroup& g : clients) n += g.count;
  return static_cast<uint32_t>(std::min<uint64_t>(n, std::numeric_limits<uint32_t>::max()));
}

uint32_t Scenario::backend_count() const {
  uint64_t n = 0;
  for (const BackendGroup& g : backends) n += g.count;
  return static_cast<uint32_t>(std::min<uint64_t>(n, std::numeric_limits<uint32_t>::max()));
}

std::string ParseError::ToString() const {
  return line > 0 ? "line " + std::to_string(line) + ": " + message : message;
}

bool ParseScenario(std::string_view text, Scenario* scenario, ParseError* error) {
  Scenario s;
  int number = 0;
  try {
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(start, end - start);
      start = end + 1;
      ++number;
      if (number > 1000000) Fail("more than 1000000 lines");
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      const size_t hash = line.find('#');
      if (hash != std::string_view::npos) line = line.substr(0, hash);
      ParseLine(line, number, &s);
    }
    Validate(s, &number);
  } catch (const Failure& failure) {
    if (error) *error = ParseError{number, failure.message};
    return false;
  } catch (const std::exception& e) {  // e.g. bad_alloc: still an answer, never a crash.
    if (error) *error = ParseError{number, std::string("cannot parse: ") + e.what()};
    return false;
  }
  *scenario = std::move(s);
  return true;
}

std::string FormatDuration(Duration d) {
  const int64_t ns = d.count();
  if (ns != 0 && ns % 1000000000 == 0) return std::to_string(ns / 1000000000) + "s";
  if (ns != 0 && ns % 1000000 == 0) return std::to_string(ns / 1000000) + "ms";
  if (ns != 0 && ns % 1000 == 0) return std::to_string(ns / 1000) + "us";
  return std::to_string(ns) + "ns";
}

std::string_view ActionName(Action action) { return Spec(action).name; }

ActionArgs ActionArguments(Action action) { return Spec(action).args; }

std::string FormatScenario(const Scenario& s) {
  std::ostringstream out;
  if (!s.name.empty()) out << "name " << s.name << "\n";
  if (!s.description.empty()) out << "description " << s.description << "\n";
  out << "duration " << FormatDuration(s.duration) << "\n";
  out << "seed " << s.seed << "\n";
  out << "network " << FormatDuration(s.network_rtt) << "\n";
  out << "connect " << FormatDuration(s.connect_time) << "\n";
  out << "max-active " << s.max_active << "\n";
  out << "count-errors " << (s.count_errors_as_active ? "on" : "off") << "\n";
  for (const ClientGroup& g : s.clients) {
    out << "clients " << g.count << " rate " << FormatNumber(g.rate_per_s) << "/s pool " << g.pool
        << " timeout " << FormatDuration(g.timeout);
    if (g.attempt_timeout.count() > 0)
      out << " attempt-timeout " << FormatDuration(g.attempt_timeout);
    out << " retries " << g.max_retries << " retry-budget " << FormatNumber(g.retry_budget)
        << " subset " << balance::SubsetModeName(g.subset);
    if (g.subset != balance::SubsetMode::kNone) out << " " << g.subset_size;
    out << " cost " << FormatDistribution(g.cost, false) << "\n";
  }
  for (const BackendGroup& g : s.backends) {
    out << "backends " << g.count << " service " << FormatDistribution(g.service, true)
        << " capacity " << g.capacity << " speed " << FormatNumber(g.speed) << " contention "
        << FormatNumber(g.contention) << "\n";
  }
  for (const Event& e : s.events) {
    const ActionSpec& spec = Spec(e.action);
    out << "at " << FormatDuration(e.at) << " ";
    if (spec.form == ActionForm::kBackend) {
      out << "backend " << FormatSelector(e.backends) << " ";
    } else if (spec.form == ActionForm::kClients) {
      out << "clients ";
    }
    out << spec.name << FormatArguments(spec, e);
    if (spec.form == ActionForm::kBackend && e.stagger.count() > 0) {
      out << " stagger " << FormatDuration(e.stagger);
    }
    out << "\n";
  }
  return out.str();
}

bool LoadScenarioFile(const std::string& path, Scenario* scenario, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = path + ": cannot open the file";
    return false;
  }
  std::string text;
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > (64u << 20)) {
      *error = path + ": larger than 64 MiB, not a scenario";
      return false;
    }
  }
  ParseError parse_error;
  if (!ParseScenario(text, scenario, &parse_error)) {
    *error = path + ":" + (parse_error.line > 0 ? std::to_string(parse_error.line) + ":" : "") +
             " " + parse_error.message;
    return false;
  }
  if (scenario->name.empty()) {
    std::string stem = path.substr(path.find_last_of('/') + 1);
    if (const size_t dot = stem.rfind('.'); dot != std::string::npos && dot > 0) stem.resize(dot);
    scenario->name = stem;
  }
  return true;
}

}  // namespace railyard::sim
