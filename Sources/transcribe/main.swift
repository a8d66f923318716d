print("transcribe: not yet")
