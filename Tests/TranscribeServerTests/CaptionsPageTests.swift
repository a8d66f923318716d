import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SpeechClient
import Testing

@testable import TranscribeServer

@Suite struct CaptionsPageTests {
  @Test func plainGetOnRootServesTheCaptionsPageAsHTML() async throws {
    let server = TranscriptionServer(configuration: ServerConfiguration(port: 0)) { .lorem() }
    try await server.makeApplication().test(.router) { client in
      try await client.execute(uri: "/", method: .get) { response in
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "text/html; charset=utf-8")
        #expect(response.headers[.cacheControl] == "no-cache")
        let page = String(buffer: response.body)
        #expect(page.hasPrefix("<!doctype html>"))
        #expect(page.contains(#"<html lang="en">"#))
        #expect(page.contains(#"data-token-required="false""#))
      }
    }
  }

  @Test func pageHoldsTheWorkletThatEncodes16kHzLittleEndianPCM() {
    let page = CaptionsPage(tokenRequired: false).html
    #expect(page.contains(#"<script type="text/worklet" id="pcm-worklet">"#))
    #expect(page.contains("class PCMEncoder extends AudioWorkletProcessor"))
    #expect(page.contains("registerProcessor('pcm-encoder', PCMEncoder);"))
    #expect(page.contains("this.view.setInt16(2 * this.count,"))
    #expect(page.contains("true);"))
    #expect(page.contains("context.audioWorklet.addModule(moduleURL)"))
    #expect(page.contains("const targetRate = 16000;"))
    #expect(CaptionsPage.sampleRate == 16_000)
  }

  @Test func pageStreamsToTheWebSocketOnItsOwnPathWithTheVoskMessages() {
    let page = CaptionsPage(tokenRequired: false).html
    #expect(page.contains("new WebSocket(socketURL())"))
    #expect(page.contains("location.protocol === 'https:' ? 'wss:' : 'ws:'"))
    #expect(page.contains("url.searchParams.set('token', token)"))
    #expect(page.contains("JSON.stringify({ config: { sample_rate: targetRate } })"))
    #expect(page.contains(#"socket.send('{"eof" : 1}')"#))
    #expect(page.contains("typeof reply.partial === 'string'"))
    #expect(page.contains("typeof reply.text === 'string'"))
    #expect(page.contains("event.code === 1013"))
  }

  @Test func pageLoadsNothingFromOutside() {
    let page = CaptionsPage(tokenRequired: false).html
    // No element pulls in a script, style, font or image, and the CSS imports nothing.
    #expect(page.firstMatch(of: /\b(src|href|srcset)\s*=/) == nil)
    #expect(!page.contains("<link"))
    #expect(!page.contains("url("))
    #expect(!page.contains("@import"))
    // The only addresses the script uses are its own: the page's, `readyz` next to it, and the
    // worklet's blob.
    #expect(page.contains("new URL(location.href)"))
    #expect(page.contains("fetch(new URL('readyz', location.href)"))
  }

  @Test func pageHasAccessibleControlsAndLiveRegions() {
    let page = CaptionsPage(tokenRequired: false).html
    #expect(
      page.contains(#"<button id="toggle" type="button" aria-pressed="false">Start</button>"#))
    #expect(page.contains(#"role="status" aria-live="polite""#))
    #expect(page.contains(#"<div id="finals" role="log" aria-live="polite""#))
    #expect(page.contains(#"<meta name="viewport""#))
  }

  @Test func pageIsServedWithoutTheTokenAndSaysOneIsNeeded() async throws {
    let server = TranscriptionServer(
      configuration: ServerConfiguration(port: 0, token: AccessToken("s3cret"))
    ) { .lorem() }
    try await server.makeApplication().test(.router) { client in
      try await client.execute(uri: "/", method: .get) { response in
        #expect(response.status == .ok)
        let page = String(buffer: response.body)
        #expect(page.contains(#"data-token-required="true""#))
        #expect(!page.contains("s3cret"))
        #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
      }
    }
  }
}
