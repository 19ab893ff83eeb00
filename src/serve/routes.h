// The routes of `symgnn serve` as one table: the Route enum, the paths Api::route_of matches,
// Api::handle's dispatch (api.cpp), the 404's list of routes and the label /metrics counts a
// request under are all generated from SYMGNN_ROUTES, so that a route is one line here and
// its handler (route_handlers.h). docs/serve.md lists the same routes for clients; a test
// (tests/serve/test_serve_routes.cpp) holds the two lists equal.
#pragma once

#include <cstddef>

/// SYMGNN_ROUTES(X) calls X(name, path, get, post, access) once per route:
///   name    its Route enumerator;
///   path    the path it answers (matched whole, the query apart), also its label in /metrics;
///   get     its GET handler (route_handlers.h), nullptr where GET is refused;
///   post    its POST handler, nullptr where POST is refused;
///   access  open, or admin: "Authorization: Bearer TOKEN" is checked before the handler runs.
/// Any other method is a 405 that names POST where the route takes POST, else GET. The rows'
/// order is the order of the routes in /metrics.
// clang-format off
#define SYMGNN_ROUTES(X)                                                     \
  X(healthz,     "/healthz",         get_healthz,   nullptr,          open)  \
  X(models,      "/v1/models",       get_models,    nullptr,          open)  \
  X(recommend,   "/v1/recommend",    get_recommend, post_recommend,   open)  \
  X(rank,        "/v1/rank",         get_rank,      post_rank,        open)  \
  X(predict,     "/v1/predict",      nullptr,       post_predict,     open)  \
  X(similar,     "/v1/similar",      get_similar,   nullptr,          open)  \
  X(explain,     "/v1/explain",      get_explain,   nullptr,          open)  \
  X(graph_edges, "/v1/graph/edges",  nullptr,       post_graph_edges, admin) \
  X(users,       "/v1/users",        get_users,     nullptr,          open)  \
  X(metrics,     "/metrics",         get_metrics,   nullptr,          open)  \
  X(reload,      "/v1/admin/reload", nullptr,       post_reload,      admin) \
  X(page,        "/",                get_page,      nullptr,          open)
// clang-format on

namespace symgnn::serve {

/// The routes counted apart in /metrics; every other path counts as Route::other.
enum class Route : int {
#define SYMGNN_ROUTE_ENUMERATOR(name, path, get, post, access) name,
  SYMGNN_ROUTES(SYMGNN_ROUTE_ENUMERATOR)
#undef SYMGNN_ROUTE_ENUMERATOR
      other,
  count
};

/// Who may call a route: anyone, or a client sending the admin token.
enum class Access { open, admin };

/// A row of the table without its handlers: what the metrics, the 404 and the tests read.
struct RouteInfo {
  Route route;
  const char* path;
  bool get;   // takes GET
  bool post;  // takes POST
  Access access;
};

/// Whether a handler column of the table names a handler: its spelling is not "nullptr".
/// (Read from the spelling, so that this header needs no handler declared.)
constexpr bool names_a_handler(const char* column) {
  const char* none = "nullptr";
  std::size_t k = 0;
  while (column[k] != '\0' && column[k] == none[k]) ++k;
  return column[k] != none[k];
}

inline constexpr RouteInfo kRouteTable[] = {
#define SYMGNN_ROUTE_INFO(name, path, get, post, access) \
  {Route::name, path, names_a_handler(#get), names_a_handler(#post), Access::access},
    SYMGNN_ROUTES(SYMGNN_ROUTE_INFO)
#undef SYMGNN_ROUTE_INFO
};
static_assert(sizeof(kRouteTable) / sizeof(kRouteTable[0]) == static_cast<std::size_t>(Route::other));

/// The label /metrics counts `r` under: its path, "other" for Route::other.
constexpr const char* route_label(Route r) {
  return r >= Route::other ? "other" : kRouteTable[static_cast<int>(r)].path;
}

}  // namespace symgnn::serve
