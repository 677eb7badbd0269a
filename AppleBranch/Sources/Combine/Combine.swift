// Stands in for Apple's Combine on Linux, so that `canImport(Combine)` holds while ScopeKit compiles and its
// Combine branch is built against the same API it meets on Apple platforms.
@_exported public import OpenCombine
