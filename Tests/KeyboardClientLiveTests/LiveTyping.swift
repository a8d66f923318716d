import Testing

/// The tests that type into real windows, one at a time: each starts a display server and a
/// terminal, and on a machine with two cores they slowed each other down past their deadlines.
@Suite(.serialized) enum LiveTyping {}
