// Api::handle: the table of routes (routes.h) turned into a dispatch; the handlers live in
// the routes_*.cpp files (route_handlers.h).
#include "serve/api.h"

#include <chrono>
#include <cstddef>
#include <exception>
#include <string>
#include <utility>

#include "serve/api_request.h"
#include "serve/route_handlers.h"
#include "serve/routes.h"

namespace symgnn::serve {

namespace {

/// The handlers of a route by method, in the table's order (routes.h): nullptr where the
/// route refuses the method.
struct RouteHandlers {
  RouteHandler get;
  RouteHandler post;
};

constexpr RouteHandlers kRouteHandlers[] = {
#define SYMGNN_ROUTE_HANDLERS(name, path, get, post, access) {get, post},
    SYMGNN_ROUTES(SYMGNN_ROUTE_HANDLERS)
#undef SYMGNN_ROUTE_HANDLERS
};

/// The 404's list of routes: the page first (where a lost client is best sent), then the
/// table's order.
const std::string& route_list() {
  static const std::string list = [] {
    std::string s = route_label(Route::page);
    for (const RouteInfo& r : kRouteTable)
      if (r.route != Route::page) s += std::string(", ") + r.path;
    return s;
  }();
  return list;
}

/// Admin routes need the token the operator gave (docs/serve.md); a client is not told how
/// to turn them on.
void check_admin(const Request& q, const std::string& token) {
  if (token.empty()) throw ApiError{403, "admin routes are off on this server"};
  if (q.authorization != "Bearer " + token)
    throw ApiError{401, "admin route: send the admin token as \"Authorization: Bearer TOKEN\""};
}

}  // namespace

Api::Api(ModelStore& store, ServeMetrics& metrics, ApiLimits limits, std::string admin_token)
    : store_(store), metrics_(metrics), limits_(limits), admin_token_(std::move(admin_token)) {}

Route Api::route_of(const std::string& path) {
  for (const RouteInfo& r : kRouteTable)
    if (path == r.path) return r.route;
  return Route::other;
}

Response Api::handle(const Request& q) const {
  const auto t0 = std::chrono::steady_clock::now();
  const Route route = route_of(q.path);
  Response out;
  try {
    if (static_cast<int64_t>(q.body.size()) > limits_.max_body_bytes)
      throw ApiError{413, "the body is " + std::to_string(q.body.size()) + " bytes, over the limit of " +
                              std::to_string(limits_.max_body_bytes)};
    if (route == Route::other)
      throw ApiError{404, "no route " + quoted(q.path) + " (routes: " + route_list() + ")"};
    const RouteHandlers& by_method = kRouteHandlers[static_cast<std::size_t>(route)];
    RouteHandler handler = nullptr;
    if (q.method == "GET" && by_method.get)
      handler = by_method.get;
    else if (q.method == "POST" && by_method.post)
      handler = by_method.post;
    else  // naming a method the route takes: POST where it takes POST (routes.h)
      throw ApiError{405, q.method + " " + q.path + ": use " + (by_method.post ? "POST" : "GET")};
    if (kRouteTable[static_cast<std::size_t>(route)].access == Access::admin) check_admin(q, admin_token_);
    out = handler(q, RouteContext{store_, metrics_, limits_, admin_token_, attributes_});
  } catch (const ApiError& e) {
    out = json_response(e.status, {{"error", e.message}});
  } catch (const std::exception& e) {
    out = json_response(500, {{"error", std::string("internal error: ") + e.what()}});
  }
  metrics_.record(route, out.status,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return out;
}

}  // namespace symgnn::serve
