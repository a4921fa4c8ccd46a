// Server-side feature modules: each registers its API routes when imported.
// -- feature modules: add imports above this line --
