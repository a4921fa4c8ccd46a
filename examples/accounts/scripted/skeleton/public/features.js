// Client-side feature modules: each registers its hooks (see core.js) when imported.
// -- feature modules: add imports above this line --
