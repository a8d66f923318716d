// The captions page's audio encoder, run on the audio thread as an AudioWorklet module.
//
// In: the microphone at the AudioContext's own rate. Out: 100 ms frames of 16-bit little-endian
// mono PCM at that same rate, posted to the page as ArrayBuffers. Nothing is resampled here: the
// page declares the rate in its vosk config message and the server converts it. After a "flush"
// message the unfinished frame goes out as it is, then "flushed", and the processor ends.

// A global of the worklet scope that ESLint's browser environment does not declare.
/* global sampleRate */

class PCMEncoder extends AudioWorkletProcessor {
  constructor() {
    super();
    // `sampleRate` is the AudioContext's rate, as the worklet scope provides it.
    this.frameSamples = Math.round(sampleRate / 10);
    this.done = false;
    this.startFrame();
    this.port.onmessage = (event) => {
      if (event.data === 'flush') this.flush();
    };
  }

  startFrame() {
    this.frame = new ArrayBuffer(this.frameSamples * 2);
    this.view = new DataView(this.frame);
    this.count = 0;
  }

  // Mixes the channels (one, as the page asks for, unless a browser ignores that) to mono and
  // appends them to the frame as 16-bit samples, posting each frame once it is full.
  append(channels) {
    const length = channels[0].length;
    const scale = 1 / channels.length;
    for (let index = 0; index < length; index++) {
      let sum = 0;
      for (const channel of channels) sum += channel[index];
      const value = Math.max(-1, Math.min(1, sum * scale));
      this.view.setInt16(2 * this.count, value < 0 ? value * 0x8000 : value * 0x7fff, true);
      this.count += 1;
      if (this.count === this.frameSamples) {
        this.port.postMessage(this.frame, [this.frame]);
        this.startFrame();
      }
    }
  }

  flush() {
    if (this.done) return;
    this.done = true;
    if (this.count > 0) {
      const rest = this.frame.slice(0, 2 * this.count);
      this.port.postMessage(rest, [rest]);
    }
    this.port.postMessage('flushed');
  }

  process(inputs) {
    if (this.done) return false;
    const input = inputs[0];
    if (input && input.length > 0) this.append(input);
    return true;
  }
}

registerProcessor('pcm-encoder', PCMEncoder);
