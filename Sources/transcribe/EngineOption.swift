import ArgumentParser
import SpeechClient

extension SpeechRecognitionRequest.EngineName: ExpressibleByArgument {
  public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}
