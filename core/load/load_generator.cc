// SPDX-License-Identifier: Apache-2.0
#include "core/load/load_generator.h"

#include <utility>

#include "railyard/docservice.boxcar.h"

namespace railyard::load {

using Clock = std::chrono::steady_clock;

LoadGenerator::LoadGenerator(LoadOptions options, OpObserver observer)
    : options_(std::move(options)),
      observer_(std::move(observer)),
      keys_(options_.distribution, options_.keys, options_.zipf_theta, options_.seed),
      rng_(options_.seed ^ 0x5851f42d4c957f2dull) {
  rpc::ClientOptions client;
  client.servers = options_.servers;
  client.pool_size = options_.pool_size;
  client.client_name = options_.client_name;
  client.credentials = options_.credentials;
  client.tls = options_.tls;
  client.default_timeout = options_.timeout;
  client.balance = options_.balance;
  client.subset_mode = options_.subset_mode;
  client.subset_size = options_.subset_size;
  client.client_index = options_.client_index;
  client_ = std::make_unique<rpc::Client>(client);
  for (const rpc::Endpoint& server : options_.servers) server_names_.push_back(server.ToString());
  if (options_.updater) {
    rpc::ClientOptions writes = client;
    writes.servers = {*options_.updater};
    if (options_.write_pool_size > 0) writes.pool_size = options_.write_pool_size;
    writes.balance.reset();  // One server: nothing to balance, so it probes rarely too.
    writes.acquirer_backoff_limit = rpc::ClientOptions::kBackoffLimitWhereSlotsBalanceNothing;
    writes.subset_mode = balance::SubsetMode::kNone;
    writes.client_id = client_->client_id();
    write_client_ = std::make_unique<rpc::Client>(writes);
  }
}

LoadGenerator::~LoadGenerator() { Stop(); }

LoadRequest LoadGenerator::NextRequest() {
  uint64_t key;
  bool read;
  {
    base::MutexLock lock(mu_);
    key = keys_.Next();
    read = std::uniform_real_distribution<double>(0, 1)(rng_) < options_.read_fraction;
  }
  const char op = read ? 'g' : 'p';
  const size_t size = read ? 0 : options_.value_size;
  if (observer_) observer_(op, key, size);
  return RequestFor(op, key, size);
}

LoadRequest LoadGenerator::RequestFor(char op, uint64_t key, size_t size) {
  if (op == 'g') {
    doc::GetRequest get;
    get.set_id(key);
    if (write_client_) get.set_min_position(positions_.For(key));
    // No replica had applied the position in time: the updater has.
    return {std::string(doc::DocService::kGetMethod), get.SerializeAsString(), nullptr,
            write_client_.get(), key};
  }
  if (op == 'd') {
    doc::DeleteRequest del;
    del.set_id(key);
    return {std::string(doc::DocService::kDeleteMethod), del.SerializeAsString(),
            write_client_.get(), nullptr, key};
  }
  doc::PutRequest put;
  put.set_id(key);
  std::string value(size, '\0');
  for (size_t i = 0; i < value.size(); ++i) value[i] = static_cast<char>('a' + (key + i) % 26);
  put.set_doc(std::move(value));
  return {std::string(doc::DocService::kPutMethod), put.SerializeAsString(), write_client_.get(),
          nullptr, key};
}

void LoadGenerator::Issue(LoadRequest request) {
  open_in_flight_.fetch_add(1);
  Send(std::move(request), Clock::now());
}

void LoadGenerator::Send(LoadRequest request, Clock::time_point start) {
  rpc::Client& client = request.client ? *request.client : *client_;
  std::string payload = request.payload;
  client.AsyncCall(
      request.method, std::move(payload),
      [this, request, start](rpc::CallResult&& result) mutable {
        if (result.status.code() == rpc::Code::kBehind && request.fallback) {
          request.client = std::exchange(request.fallback, nullptr);
          Send(std::move(request), start);  // Still the same call in flight.
          return;
        }
        OnResult(request, result, Clock::now() - start);
        open_in_flight_.fetch_sub(1);
      },
      options_.timeout);
}

void LoadGenerator::ReplayLoop() {
  const double speed = options_.replay_speed > 0 ? options_.replay_speed : 1.0;
  const Clock::time_point start = Clock::now();
  for (const ScheduledOp& op : options_.replay) {
    if (stopping_) return;
    std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(
                                              std::chrono::duration<double, std::micro>(
                                                  static_cast<double>(op.offset.count()) / speed)));
    if (stopping_) return;
    if (observer_) observer_(op.op, op.key, op.size);
    Issue(RequestFor(op.op, op.key, op.size));
  }
  finished_ = true;
}

namespace {

bool IsWrite(const LoadRequest& request) { return request.method != doc::DocService::kGetMethod; }

// The position an acknowledged write reached (0 if its answer carries none).
uint64_t PositionOf(const LoadRequest& request, const std::string& payload) {
  if (request.method == doc::DocService::kPutMethod) {
    doc::PutResponse put;
    return put.ParseFromString(payload) ? put.position() : 0;
  }
  doc::DeleteResponse del;
  return del.ParseFromString(payload) ? del.position() : 0;
}

}  // namespace

void LoadGenerator::OnResult(const LoadRequest& request, const rpc::CallResult& result,
                             std::chrono::nanoseconds latency) {
  const rpc::Code code = result.status.code();
  const bool answered = !base::IsFailure(code);  // docs/figures.md: NOT_FOUND, BEHIND too.
  const bool write = IsWrite(request);
  if (write && result.status.ok() && write_client_) {
    positions_.Acknowledged(request.key, PositionOf(request, result.payload));
  }
  if (code == rpc::Code::kPoolExhausted) {
    stats_.RecordRejection();
  } else {
    stats_.Record(request.method, latency, !answered);
  }
  // Which node answered: the updater for what went to its client (writes, and reads that fell
  // back to it), else by the read client's server index.
  const std::string* node = nullptr;
  std::string updater;
  if (write_client_ && request.client == write_client_.get()) {
    updater = options_.updater->ToString();
    node = &updater;
  } else if (result.server && *result.server < server_names_.size()) {
    node = &server_names_[*result.server];
  }
  bool carried_position = false;
  if (!write && write_client_) {
    doc::GetRequest get;
    carried_position = get.ParseFromString(request.payload) && get.min_position() > 0;
  }
  base::MutexLock lock(mu_);
  ++counts_.requests;
  if (carried_position) ++counts_.reads_with_position;
  if (result.status.ok()) {
    ++counts_.ok;
  } else if (code == rpc::Code::kNotFound) {
    ++counts_.not_found;
  } else if (code == rpc::Code::kBehind) {
    ++counts_.behind;
  } else if (code == rpc::Code::kPoolExhausted) {
    ++counts_.rejections;
  } else {
    ++counts_.errors;
    const std::string name(rpc::CodeName(code));
    ++counts_.errors_by_code[name];
    counts_.first_error_by_code.try_emplace(name, result.status.message());
  }
  if (node) {
    NodeCounts& n = counts_.by_node[*node];
    if (!answered) {
      ++n.errors;
    } else if (write) {
      ++n.writes;
    } else {
      ++n.reads;
    }
  }
  if (answered) latencies_.Add(latency);
}

rpc::Status LoadGenerator::Start() {
  if (options_.servers.empty()) return {rpc::Code::kInvalidArgument, "no servers to load"};
  if (rpc::Status s = client_->Start(); !s.ok()) return s;
  if (write_client_) {
    if (rpc::Status s = write_client_->Start(); !s.ok()) return s;
  }
  // Why the last connection failed (refused, a TLS handshake, a hello refused...) is what the
  // operator needs to hear.
  const auto why = [](const rpc::Client& client) {
    const std::string failure = client.Snapshot().last_connect_failure;
    return failure.empty() ? std::string() : " (" + failure + ")";
  };
  // A server set up otherwise (TLS where this load has none, or the reverse) fails at once.
  if (!client_->WaitForPoolUnlessRefused(std::min<size_t>(options_.pool_size, 1),
                                         std::chrono::seconds(5))) {
    return {rpc::Code::kUnavailable, "could not connect to any server" + why(*client_)};
  }
  if (write_client_ && !write_client_->WaitForPoolUnlessRefused(1, std::chrono::seconds(5))) {
    return {rpc::Code::kUnavailable, "could not connect to the updater " +
                                         options_.updater->ToString() + why(*write_client_)};
  }
  client_->WaitForPool(options_.pool_size, std::chrono::seconds(2));  // Best effort.
  if (write_client_) write_client_->WaitForPool(options_.pool_size, std::chrono::seconds(1));
  started_ = Clock::now();
  auto observe = [this](const LoadRequest& request, const rpc::CallResult& result,
                        std::chrono::nanoseconds latency) { OnResult(request, result, latency); };
  if (!options_.replay.empty()) {
    open_loop_ = std::thread([this] { ReplayLoop(); });
  } else if (options_.rate > 0) {
    open_loop_ = std::thread([this] { OpenLoop(); });
  } else {
    closed_loop_ = std::make_unique<ClosedLoopLoad>(
        *client_, [this] { return NextRequest(); }, options_.concurrency, options_.timeout,
        observe);
    closed_loop_->Start();
  }
  return rpc::Status::Ok();
}

void LoadGenerator::OpenLoop() {
  // Calls leave on schedule whether or not earlier ones have returned: a slow server shows up as
  // latency and rejections, not as a lower offered rate.
  const auto interval = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(1.0 / options_.rate));
  Clock::time_point next = Clock::now();
  while (!stopping_) {
    std::this_thread::sleep_until(next);
    next += interval;
    Issue(NextRequest());
  }
}

void LoadGenerator::Stop() {
  if (stopping_.exchange(true)) return;
  stopped_ = Clock::now();
  // Calls in flight get a moment to finish. One still waiting then (a read for a position its
  // replica never reaches once the updater is gone waits out its deadline, retries included)
  // is cancelled by the clients' Stop and counted as a failure: an operator's Ctrl-C is not held
  // up for the whole deadline.
  const auto grace = std::min<std::chrono::milliseconds>(options_.timeout, std::chrono::seconds(2));
  if (closed_loop_) {
    closed_loop_->Stop();
    closed_loop_->WaitIdle(grace);
  }
  if (open_loop_.joinable()) open_loop_.join();
  const auto give_up = Clock::now() + grace;
  while (open_in_flight_.load() > 0 && Clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  client_->Stop();
  if (write_client_) write_client_->Stop();
  // The cancelled calls' answers, counted before Result() is read.
  if (closed_loop_) closed_loop_->WaitIdle(std::chrono::seconds(1));
  while (open_in_flight_.load() > 0 && Clock::now() < give_up + std::chrono::seconds(1)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void LoadResult::Add(const LoadResult& o) {
  requests += o.requests;
  ok += o.ok;
  not_found += o.not_found;
  behind += o.behind;
  errors += o.errors;
  rejections += o.rejections;
  retries += o.retries;
  for (const auto& [code, count] : o.errors_by_code) errors_by_code[code] += count;
  for (const auto& [code, message] : o.first_error_by_code) {
    first_error_by_code.try_emplace(code, message);
  }
  reads_with_position += o.reads_with_position;
  for (const auto& [node, counts] : o.by_node) {
    NodeCounts& mine = by_node[node];
    mine.reads += counts.reads;
    mine.writes += counts.writes;
    mine.errors += counts.errors;
  }
}

LoadResult LoadGenerator::Result() const {
  base::MutexLock lock(mu_);
  LoadResult report = counts_;
  const Clock::time_point end = stopping_ ? stopped_ : Clock::now();
  report.elapsed_s = std::chrono::duration<double>(end - started_).count();
  report.p50_us = latencies_.PercentileUs(0.50);
  report.p99_us = latencies_.PercentileUs(0.99);
  report.max_us = latencies_.max_us();
  report.retries = client_->Snapshot().counters.retries;
  if (write_client_) report.retries += write_client_->Snapshot().counters.retries;
  return report;
}

}  // namespace railyard::load
