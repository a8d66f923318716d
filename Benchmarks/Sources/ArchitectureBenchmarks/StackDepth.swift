import Foundation

/// The call stack recorded by the innermost reducer during the stack-depth benchmark.
nonisolated(unsafe) var recordedStack: [String]?
nonisolated(unsafe) var isRecordingStack = false

/// Records the current call stack when the benchmark asks for it.
@inline(never)
func recordStackDepth() {
  guard isRecordingStack else { return }
  recordedStack = Thread.callStackSymbols
}

/// Counts the frames between `send` (called from `body`) and the innermost reducer, both
/// included: the depth inside the reducer minus the depth of `body` itself.
@MainActor
func framesFromSendToInnermostReducer(_ body: () -> Void) -> (count: Int, frames: [String]) {
  let baseDepth = Thread.callStackSymbols.count
  isRecordingStack = true
  recordedStack = nil
  body()
  isRecordingStack = false
  guard let stack = recordedStack else { return (0, []) }
  // Both stacks start with the frame that captured them. Inside the reducer, `stack[1]` is
  // `recordStackDepth` and `stack[2]` the innermost reducer; below the frames counted come
  // `body` and then the `baseDepth - 1` frames from this function down.
  let count = stack.count - baseDepth - 2
  return (count, Array(stack[2..<(2 + count)]))
}
