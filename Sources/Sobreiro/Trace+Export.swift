// The trace is shared with ScopeKit, which emits the lifecycle events; `import Sobreiro` brings it along.
@_exported public import SobreiroTrace
