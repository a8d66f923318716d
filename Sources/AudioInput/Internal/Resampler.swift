import CSampleRate

/// Converts mono float audio from one sample rate to another with libsamplerate.
final class Resampler {
  struct Error: Swift.Error {
    var reason: String
  }

  private let state: OpaquePointer
  private let ratio: Double

  init(ratio: Double) throws(Error) {
    var error: Int32 = 0
    guard let state = src_new(Int32(SRC_SINC_MEDIUM_QUALITY), 1, &error) else {
      throw Error(reason: "libsamplerate: \(String(cString: src_strerror(error)))")
    }
    self.state = state
    self.ratio = ratio
  }

  deinit {
    src_delete(state)
  }

  /// Converts a block; `isLast` flushes what the converter still holds.
  func process(_ input: [Float], isLast: Bool) throws(Error) -> [Float] {
    var output = [Float](repeating: 0, count: Int(Double(input.count) * ratio) + 256)
    var produced = 0
    var consumed = 0
    repeat {
      var used = 0
      var generated = 0
      let error = input.withUnsafeBufferPointer { input in
        output.withUnsafeMutableBufferPointer { output in
          var data = SRC_DATA()
          data.data_in = input.baseAddress.map { $0 + consumed }
          data.input_frames = input.count - consumed
          data.data_out = output.baseAddress.map { $0 + produced }
          data.output_frames = output.count - produced
          data.end_of_input = isLast ? 1 : 0
          data.src_ratio = ratio
          let error = src_process(state, &data)
          used = data.input_frames_used
          generated = data.output_frames_gen
          return error
        }
      }
      guard error == 0 else {
        throw Error(reason: "libsamplerate: \(String(cString: src_strerror(error)))")
      }
      consumed += used
      produced += generated
      if produced == output.count { output += [Float](repeating: 0, count: 1024) }
      if generated == 0, used == 0 { break }
    } while consumed < input.count || isLast
    return Array(output[..<produced])
  }
}
