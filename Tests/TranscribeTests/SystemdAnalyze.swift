import Foundation

/// Runs `systemd-analyze verify` on a unit file: its exit status and what it wrote on stderr.
func systemdAnalyzeVerify(_ unit: URL) throws -> (status: Int32, complaints: String) {
  let verify = Process()
  verify.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
  verify.arguments = ["verify", unit.path]
  let errors = Pipe()
  verify.standardError = errors
  try verify.run()
  let complaints = String(
    decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  verify.waitUntilExit()
  return (verify.terminationStatus, complaints)
}
