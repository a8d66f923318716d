/// Registers a dependency with one property in an extension of ``DependencyValues``: the macro
/// writes the key type and the accessors.
///
/// ```swift
/// extension DependencyValues {
///   @DependencyEntry var apiClient = APIClient.unimplemented
///   @DependencyEntry(liveValue: Greeter.live, previewValue: Greeter.preview)
///   var greeter = Greeter.unimplemented
/// }
/// ```
///
/// The initial value is the test value, and also the live and preview value unless
/// `liveValue:` or `previewValue:` gives another.
@attached(accessor, names: named(get), named(set))
@attached(peer, names: arbitrary)
public macro DependencyEntry<LiveValue, PreviewValue>(
  liveValue: LiveValue = (),
  previewValue: PreviewValue = ()
) = #externalMacro(module: "DependenciesMacros", type: "DependencyEntryMacro")

/// Registers a dependency like `DependencyEntry(liveValue:previewValue:)`, naming its key type
/// `keyName`.
@attached(accessor, names: named(get), named(set))
@attached(peer, names: arbitrary)
public macro DependencyEntry<LiveValue, PreviewValue>(
  _ keyName: String,
  liveValue: LiveValue = (),
  previewValue: PreviewValue = ()
) = #externalMacro(module: "DependenciesMacros", type: "DependencyEntryMacro")
