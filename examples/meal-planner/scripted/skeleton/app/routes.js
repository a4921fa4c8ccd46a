// The route table: one line per feature module, [path pattern, module under app/features/]. A module exports
// handlers named after HTTP methods (GET, POST) for its pages, and/or `before(ctx)`, which runs before the handler
// of every request whose path matches (hooks: sessions, access checks, list options). Patterns: `/recipes/:id`,
// `/recipes/:id/*` (that path and every path below it), `*` (every path).
export const ROUTES = [
  ['/', 'home'],
  // -- routes: add one line per feature above this line --
];
