import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plug-in that provides `Architecture`'s macros.
@main
struct ArchitectureMacrosPlugin: CompilerPlugin {
  let providingMacros: [any Macro.Type] = [
    ReducerMacro.self,
    ObservableStateMacro.self,
    ObservationStateTrackedMacro.self,
    ObservationStateIgnoredMacro.self,
    PresentsMacro.self,
    ReducerCaseMarkerMacro.self,
  ]
}
