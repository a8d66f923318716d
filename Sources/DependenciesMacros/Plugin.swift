import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plug-in that provides the `Dependencies` module's macros.
@main
struct DependenciesMacrosPlugin: CompilerPlugin {
  let providingMacros: [any Macro.Type] = [
    DependencyClientMacro.self,
    DependencyEndpointMacro.self,
    DependencyEntryMacro.self,
  ]
}
