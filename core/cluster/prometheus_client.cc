// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/prometheus_client.h"

#include <curl/curl.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <mutex>

namespace railyard::cluster {

namespace {

using base::Status;
using Code = base::StatusCode;
namespace pb = google::protobuf;

// An answer larger than this is refused rather than held in memory (parsed, it takes several
// times its size). Not measured against real answers: a bound, not a budget.
constexpr size_t kMaxAnswerBytes = 512u << 20;

struct Answer {
  std::string body;
  bool too_large = false;
};

size_t AppendBody(char* data, size_t size, size_t count, void* user) {
  auto* answer = static_cast<Answer*>(user);
  const size_t n = size * count;
  if (answer->body.size() + n > kMaxAnswerBytes) {
    answer->too_large = true;
    return 0;  // Aborts the transfer.
  }
  answer->body.append(data, n);
  return n;
}

// curl_global_init is not thread-safe: once per process, before the first handle.
void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

std::string Escape(CURL* curl, std::string_view text) {
  char* escaped = curl_easy_escape(curl, text.data(), static_cast<int>(text.size()));
  std::string out = escaped ? escaped : "";
  curl_free(escaped);
  return out;
}

// Seconds with millisecond precision, as the API takes them.
std::string Seconds(int64_t ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ms / 1000),
                static_cast<long long>(ms % 1000));
  return buf;
}

const pb::Value* Field(const pb::Struct& s, const std::string& name) {
  auto it = s.fields().find(name);
  return it == s.fields().end() ? nullptr : &it->second;
}

}  // namespace

Status ParseQueryRangeAnswer(std::string_view json, std::vector<PromSeries>* out) {
  out->clear();
  pb::Struct root;
  if (!pb::util::JsonStringToMessage(std::string(json), &root).ok()) {
    return {Code::kProtocolError, "the answer is not JSON"};
  }
  const pb::Value* status = Field(root, "status");
  if (!status || !status->has_string_value()) {
    return {Code::kProtocolError, "the answer has no \"status\": not the Prometheus API"};
  }
  if (status->string_value() != "success") {
    const pb::Value* error = Field(root, "error");
    return Status::InvalidArgument(error && error->has_string_value() ? error->string_value()
                                                                      : "the query failed");
  }
  const pb::Value* data = Field(root, "data");
  if (!data || !data->has_struct_value()) return {Code::kProtocolError, "the answer has no data"};
  const pb::Value* type = Field(data->struct_value(), "resultType");
  if (!type || type->string_value() != "matrix") {
    return {Code::kProtocolError, "a range query's answer that is not a matrix"};
  }
  const pb::Value* result = Field(data->struct_value(), "result");
  if (!result || !result->has_list_value()) {
    return {Code::kProtocolError, "the answer has no result list"};
  }
  for (const pb::Value& item : result->list_value().values()) {
    if (!item.has_struct_value()) return {Code::kProtocolError, "a series that is not an object"};
    PromSeries series;
    if (const pb::Value* metric = Field(item.struct_value(), "metric");
        metric && metric->has_struct_value()) {
      for (const auto& [name, value] : metric->struct_value().fields()) {
        series.labels[name] = value.string_value();
      }
    }
    const pb::Value* values = Field(item.struct_value(), "values");
    if (!values || !values->has_list_value()) {
      return {Code::kProtocolError, "a series without values"};
    }
    series.samples.reserve(static_cast<size_t>(values->list_value().values_size()));
    for (const pb::Value& pair : values->list_value().values()) {
      // [ <unix seconds, a number>, "<value, a string>" ]
      if (!pair.has_list_value() || pair.list_value().values_size() != 2 ||
          !pair.list_value().values(0).has_number_value() ||
          !pair.list_value().values(1).has_string_value()) {
        return {Code::kProtocolError, "a sample that is not [time, \"value\"]"};
      }
      const std::string& text = pair.list_value().values(1).string_value();
      char* end = nullptr;
      const double value = std::strtod(text.c_str(), &end);
      if (end == text.c_str()) return {Code::kProtocolError, "a sample value that is no number"};
      series.samples.push_back(
          {std::llround(pair.list_value().values(0).number_value() * 1000.0), value});
    }
    out->push_back(std::move(series));
  }
  return Status::Ok();
}

Status QueryRange(const PrometheusServer& server, std::string_view promql, int64_t from_ms,
                  int64_t to_ms, int64_t step_ms, std::vector<PromSeries>* out) {
  out->clear();
  if (server.url.empty()) return Status::InvalidArgument("no Prometheus URL");
  InitCurlOnce();
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) return {Code::kInternal, "libcurl could not start a transfer"};
  std::string base = server.url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  const std::string url = base + "/api/v1/query_range?query=" + Escape(curl.get(), promql) +
                          "&start=" + Seconds(from_ms) + "&end=" + Seconds(to_ms) +
                          "&step=" + Seconds(std::max<int64_t>(step_ms, 1));
  Answer answer;
  std::unique_ptr<curl_slist, SlistDeleter> headers;
  if (!server.bearer_token.empty()) {
    const std::string auth = "Authorization: Bearer " + server.bearer_token;
    headers.reset(curl_slist_append(nullptr, auth.c_str()));
  }
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // Threads: no SIGALRM for timeouts.
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(server.timeout.count()));
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");  // Whatever libcurl decodes (gzip).
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &AppendBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &answer);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "railyard");
  if (headers) curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  if (!server.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, server.ca_file.c_str());
  if (!server.cert_file.empty()) curl_easy_setopt(c, CURLOPT_SSLCERT, server.cert_file.c_str());
  if (!server.key_file.empty()) curl_easy_setopt(c, CURLOPT_SSLKEY, server.key_file.c_str());

  const std::string where = "Prometheus at " + base;
  const CURLcode rc = curl_easy_perform(c);
  if (answer.too_large) {
    return {Code::kResourceExhausted, where + ": an answer over " +
                                          std::to_string(kMaxAnswerBytes >> 20) +
                                          " MiB (a shorter range or a longer step)"};
  }
  if (rc != CURLE_OK) {
    const Code code = rc == CURLE_OPERATION_TIMEDOUT ? Code::kDeadlineExceeded : Code::kUnavailable;
    return {code, where + ": " + curl_easy_strerror(rc)};
  }
  long http = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &http);
  if (http == 401 || http == 403) {
    return {Code::kUnauthenticated,
            where + ": HTTP " + std::to_string(http) + " (a bearer token it accepts?)"};
  }
  if (http == 400 || http == 422) {
    // The API says why in the same JSON as an answer ("status": "error").
    const Status said = ParseQueryRangeAnswer(answer.body, out);
    out->clear();
    return Status::InvalidArgument(
        where + ": " +
        (said.IsInvalidArgument() ? said.message() : "HTTP " + std::to_string(http)));
  }
  if (http >= 500) return {Code::kUnavailable, where + ": HTTP " + std::to_string(http)};
  if (http != 200) {
    return {Code::kProtocolError, where + ": HTTP " + std::to_string(http) + " to a range query"};
  }
  Status s = ParseQueryRangeAnswer(answer.body, out);
  if (!s.ok()) return {s.code(), where + ": " + s.message()};
  return Status::Ok();
}

}  // namespace railyard::cluster
