// The API routes. Feature modules (and api/session.js) register theirs with addRoute when api/modules.js imports them.

const routes = [];

/** Registers a handler `({ req, res, url, params }) => …` for a method and a path pattern (named groups become params). */
export function addRoute(method, pattern, handler) {
  routes.push({ method, pattern, handler });
}

/** The route for a request, or undefined. */
export function findRoute(method, pathname) {
  for (const route of routes) {
    if (route.method !== method) continue;
    const match = route.pattern.exec(pathname);
    if (match) return { handler: route.handler, params: match.groups ?? {} };
  }
  return undefined;
}
