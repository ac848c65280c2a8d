// SPDX-License-Identifier: Apache-2.0
#include "core/http/http_message.h"

#include <algorithm>
#include <cctype>

namespace railyard::http {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool HasControlCharacters(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t') || u == 0x7f;
  });
}

bool IsToken(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

// Splits off the next line (without its CR LF or LF).
std::string_view NextLine(std::string_view* rest) {
  const size_t end = rest->find('\n');
  std::string_view line = rest->substr(0, end);
  rest->remove_prefix(end == std::string_view::npos ? rest->size() : end + 1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

}  // namespace

bool ParseRequestHead(std::string_view head, HttpRequest* out, std::string* error) {
  std::string_view rest = head;
  const std::string_view line = NextLine(&rest);
  const size_t first = line.find(' ');
  const size_t last = line.rfind(' ');
  if (first == std::string_view::npos || first == last) {
    *error = "the request line is not METHOD TARGET HTTP/1.x";
    return false;
  }
  const std::string_view method = line.substr(0, first);
  const std::string_view target = line.substr(first + 1, last - first - 1);
  const std::string_view version = line.substr(last + 1);
  if (!IsToken(method)) {
    *error = "the request line does not start with a method";
    return false;
  }
  if (version != "HTTP/1.1" && version != "HTTP/1.0") {
    *error = "not an HTTP/1.0 or HTTP/1.1 request";
    return false;
  }
  if (target.empty() || target.front() != '/' || target.find(' ') != std::string_view::npos ||
      HasControlCharacters(target)) {
    *error = "the request target is not an absolute path";
    return false;
  }
  out->method = std::string(method);
  const size_t question = target.find('?');
  out->path = std::string(target.substr(0, question));
  out->query = question == std::string_view::npos ? "" : std::string(target.substr(question + 1));
  out->authorization.clear();
  while (!rest.empty()) {
    const std::string_view header = NextLine(&rest);
    if (header.empty()) break;
    const size_t colon = header.find(':');
    if (colon == std::string_view::npos || !IsToken(header.substr(0, colon)) ||
        HasControlCharacters(header)) {
      *error = "a header line is not NAME: VALUE";
      return false;
    }
    if (EqualsIgnoringCase(header.substr(0, colon), "authorization")) {
      out->authorization = std::string(Trim(header.substr(colon + 1)));
    }
  }
  return true;
}

std::string SerializeResponse(const HttpResponse& response, bool head_only) {
  std::string out =
      "HTTP/1.1 " + std::to_string(response.status) + " " + ReasonPhrase(response.status) + "\r\n";
  out += "Content-Type: " + response.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  out += "Connection: close\r\n";
  out += "Cache-Control: no-store\r\n";
  for (const auto& [name, value] : response.headers) out += name + ": " + value + "\r\n";
  out += "\r\n";
  if (!head_only) out += response.body;
  return out;
}

const char* ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

}  // namespace railyard::http
