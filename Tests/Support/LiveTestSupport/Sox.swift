import Foundation

/// Runs sox with `arguments` (global options, inputs, output and effects, as on its command
/// line) and returns its standard output; throws if it fails.
///
/// sox adds dither whenever its output has fewer bits than its processing (after `rate`, `vol`,
/// a mix, …), seeded afresh on every run, so the same command wrote slightly different samples
/// each time; and a decoder near a tie between two words can hear a difference of one in the
/// last bit. Tests compare words, so their audio must be the same on every run: this runs sox
/// with `-D` (no dither), so one command always writes the same bytes.
@discardableResult
public func runSox(_ arguments: [String]) throws -> String {
  try runCommand(soxPath, ["-D"] + arguments)
}

/// Where the tests find sox (`scripts/install-dependencies.sh` installs it).
public let soxPath = "/usr/bin/sox"
