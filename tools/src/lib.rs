//! Nothing here: the tools are the examples under `tools/examples/`.
