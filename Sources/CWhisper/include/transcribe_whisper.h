// transcribe's own small C interface to whisper.cpp, for the Whisper engine.
//
// whisper.cpp passes its decoding parameters as a large struct by value, which Swift cannot
// declare without whisper.h; this shim is compiled against the whisper.h that
// `scripts/install-dependencies.sh --whisper` installs (from pywhispercpp's sdist) and reaches
// the library itself at run time through dlopen, so building needs no library and running
// without Whisper costs nothing. Without whisper.h at build time the shim still compiles, and
// every entry point reports that this build has no Whisper engine
// (transcribe_whisper_compiled() returns 0).
#ifndef TRANSCRIBE_WHISPER_H
#define TRANSCRIBE_WHISPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// 1 when the shim was compiled against whisper.h, 0 when this build has no Whisper engine.
int transcribe_whisper_compiled(void);

/// Opens whisper.cpp's library at `path` (once per process; later calls with any path return
/// the first result). 0 on success; otherwise a reason is written to `reason`.
int transcribe_whisper_open_library(const char *path, char *reason, size_t reason_size);

/// The library's languages: ids from 0 to transcribe_whisper_language_count() - 1.
int transcribe_whisper_language_count(void);
/// A language's code ("de") and English name ("german"), or NULL for an unknown id.
const char *transcribe_whisper_language_code(int id);
const char *transcribe_whisper_language_name(int id);
/// The id of a code or an English name, or -1.
int transcribe_whisper_language_id(const char *code);

/// A loaded model, shared by any number of decoders on any threads.
typedef struct transcribe_whisper_model transcribe_whisper_model;
/// One decoder over a model, with the results of its last decode: used by one thread at a time.
typedef struct transcribe_whisper_decoder transcribe_whisper_decoder;

/// Loads a ggml model file; NULL when it cannot be loaded (whisper.cpp logs why).
transcribe_whisper_model *transcribe_whisper_model_load(const char *path);
void transcribe_whisper_model_free(transcribe_whisper_model *model);
/// Whether the model is multilingual (it can decode other languages than English, translate,
/// and detect the language).
bool transcribe_whisper_model_is_multilingual(const transcribe_whisper_model *model);

transcribe_whisper_decoder *transcribe_whisper_decoder_make(transcribe_whisper_model *model);
void transcribe_whisper_decoder_free(transcribe_whisper_decoder *decoder);

/// How one piece of audio is decoded.
typedef struct {
  /// Threads of the encoder and decoder.
  int threads;
  /// Beam search with this many beams; 0 or 1 for greedy decoding.
  int beam_size;
  /// The language's id; must be a language (detect it first for "auto").
  int language;
  /// Write the speech as English (Whisper's translate task).
  bool translate;
  /// Encoder frames to compute (50 per second); 0 for the full 30 s window.
  int audio_context;
  /// Text the decoder continues from (names, spelling, style), or NULL.
  const char *prompt;
  /// Keep the first decode, without whisper.cpp's retries at higher temperatures (which it
  /// makes when a text repeats itself or is unlikely).
  bool without_fallback;
} transcribe_whisper_settings;

/// The most likely language of the audio (its first 30 s), with its probability; a negative
/// number on failure.
int transcribe_whisper_detect_language(
    transcribe_whisper_decoder *decoder, const float *samples, int count, int threads,
    float *probability);

/// Decodes 16 kHz mono samples in [-1, 1]. 0 on success.
int transcribe_whisper_decode(
    transcribe_whisper_decoder *decoder, const float *samples, int count,
    const transcribe_whisper_settings *settings);

/// A token of the last decode: its text (bytes, maybe part of a UTF-8 character), its times in
/// hundredths of a second from the start of the audio, its probability, and whether it is one
/// of the model's special tokens (timestamps, task and language markers) rather than text.
typedef struct {
  int id;
  const char *text;
  int64_t start;
  int64_t end;
  float probability;
  bool special;
} transcribe_whisper_token;

int transcribe_whisper_segment_count(transcribe_whisper_decoder *decoder);
int transcribe_whisper_token_count(transcribe_whisper_decoder *decoder, int segment);
transcribe_whisper_token transcribe_whisper_token_at(
    transcribe_whisper_decoder *decoder, int segment, int index);
/// The probability that a segment of the last decode holds no speech.
float transcribe_whisper_segment_no_speech(transcribe_whisper_decoder *decoder, int segment);

#ifdef __cplusplus
}
#endif

#endif
