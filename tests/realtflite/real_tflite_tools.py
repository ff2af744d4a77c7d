#!/usr/bin/env python3
"""Real TensorFlow Lite 2.21 (../shared/tflite, see its README) drives nnemu's libraries.

One case per model: TFLite's own benchmark_model runs the model through each route into nnemu
    nnapi       LD_LIBRARY_PATH=<build>/lib, --use_nnapi=true --nnapi_accelerator_name=synap-npu
    nnapi_cpu   the same with nnapi-reference (--disable_nnapi_cpu=false)
    sl          --nnapi_support_library_path=<build>/lib/libneuralnetworks.so (no LD_LIBRARY_PATH)
    vx          --external_delegate_path=<build>/lib/libvx_delegate.so
and nnemu's own benchmark_model runs it with the same flags on the same input file. Checked: both
exit 0, both say the same of the delegate ("the model graph will be completely executed by the
delegate" or "partially ... w/ N delegate kernels"; a model nnemu's tool fully delegates,
"Replacing N out of N node(s)", must be completely executed by TFLite's delegate too), and the output bytes are identical (the same device
computes them; the nodes outside the delegate run, first with both tools' defaults, on TFLite's
XNNPACK delegate and on nnemu's XNNPACK forms, then with --use_xnnpack=false in both, on TFLite's
builtin kernels and nnemu's; XNNPACK_GAPS lists the models compared the second way only). For classifiers, TFLite's label_image and nnemu's print the same top
label through NNAPI (-a 1) and through the vx delegate (the order of the next four waits for
label_image's TFLite resize, issue 24 part 5).

Usage: real_tflite_tools.py <build dir> <shared dir> <work dir> <case>|--list
Exit 77 (skipped) when <shared dir>/tflite is absent, or a case's shared model is.
"""
import os
import re
import shutil
import struct
import subprocess
import sys

SKIP = 77


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


class Context:
    def __init__(self, build, shared, work):
        self.bin = os.path.join(build, "bin")
        self.lib = os.path.abspath(os.path.join(build, "lib"))
        self.shared = os.path.abspath(shared)
        self.tflite = os.path.join(self.shared, "tflite", "bin")
        self.models = os.path.join(self.shared, "models")
        self.work = work

    def run(self, command, env_extra=None, log_name=None):
        env = dict(os.environ)
        env.pop("LD_LIBRARY_PATH", None)
        env["NNEMU_ROOT"] = os.path.join(self.work, "device-root")   # a fresh device root per case
        env.update(env_extra or {})
        result = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, errors="replace", timeout=300)
        if log_name:
            with open(os.path.join(self.work, log_name), "w") as log:
                log.write(" ".join(command) + "\n" + result.stdout)
        return result.returncode, result.stdout


def input_name(ctx, model):
    """The model's single input: its tensor name and shape (1,224,224,3), as tflite_run prints them."""
    code, out = ctx.run([os.path.join(ctx.tflite, "tflite_run"), "--model=" + model, "--xnnpack=0", "--runs=1",
                         "--pattern=zero"])
    inputs = re.findall(r'^input \d+: tensor=\d+ name="([^"]*)" type=\w+ shape=\[([0-9,]*)\]', out, re.M)
    if code != 0 or len(inputs) != 1:
        fail("tflite_run cannot read %s (one input expected):\n%s" % (model, out))
    return inputs[0][0], inputs[0][1], len(re.findall(r"^output \d+: tensor=", out, re.M))


def replaced(out):
    """How the delegate took the graph, as both tools print it: "completely executed by the
    delegate", "partially executed by the delegate w/ N delegate kernels", or None."""
    found = re.findall(r"the model graph will be (completely executed by the delegate|"
                       r"partially executed by the delegate w/ \d+ delegate kernels)", out)
    return found[-1] if found else None


def full_delegation(out):
    """nnemu's benchmark_model's "Replacing N out of N node(s)"."""
    found = re.findall(r"Replacing (\d+) out of (\d+) node\(s\)", out)
    return bool(found) and found[-1][0] == found[-1][1]


def top_labels(out):
    """label_image's result lines ("<score>: <index> <label>"), the indexes in order."""
    return [int(m) for m in re.findall(r"^(?:INFO: )?\d+\.\d+: (\d+) ", out, re.M)]


ROUTES = {
    # route: (TFLite's environment and flags, nnemu's flags)
    "nnapi": (True, ["--use_nnapi=true", "--nnapi_accelerator_name=synap-npu"],
              ["--use_nnapi=true", "--nnapi_accelerator_name=synap-npu"]),
    "nnapi_cpu": (True, ["--use_nnapi=true", "--nnapi_accelerator_name=nnapi-reference", "--disable_nnapi_cpu=false"],
                  ["--use_nnapi=true", "--nnapi_accelerator_name=nnapi-reference", "--disable_nnapi_cpu=false"]),
    "sl": (False, ["--use_nnapi=true", "--nnapi_accelerator_name=synap-npu", "--nnapi_support_library_path={sl}"],
           ["--use_nnapi=true", "--nnapi_accelerator_name=synap-npu", "--nnapi_support_library_path={sl}"]),
    "vx": (False, ["--external_delegate_path={vx}"], ["--external_delegate_path={vx}"]),
}


# Models whose CPU nodes include forms nnemu does not yet compute as TFLite's default delegate
# (XNNPACK) does (docs/tflite.md, "The CPU path's two semantics"): compared with XNNPACK off only.
XNNPACK_GAPS = {
    "dynamic_range_float",   # its hybrid CONV_2D / FULLY_CONNECTED (XNNPACK's dynamically quantized forms)
}


def check_benchmark(ctx, name, model, input_file):
    layer, shape, outputs = input_name(ctx, model)
    sl = os.path.join(ctx.lib, "libneuralnetworks.so")
    vx = os.path.join(ctx.lib, "libvx_delegate.so")
    short_run = ["--num_runs=1", "--warmup_runs=1", "--min_secs=0", "--warmup_min_secs=0"]
    # Both tools' defaults (TFLite's XNNPACK delegate on the nodes the route leaves, nnemu's XNNPACK
    # forms), then both with XNNPACK off (TFLite's builtin kernels on both sides).
    semantics = [("off", ["--use_xnnpack=false"])]
    if name not in XNNPACK_GAPS:
        semantics.insert(0, ("default", []))
    for (route, (use_path, tf_flags, nn_flags)), (sem, xnn) in [(r, s) for r in ROUTES.items() for s in semantics]:
        tf_out = os.path.join(ctx.work, "%s.%s.%s.tflite.out" % (name, route, sem))
        nn_out = os.path.join(ctx.work, "%s.%s.%s.nnemu.out" % (name, route, sem))
        tf_cmd = [os.path.join(ctx.tflite, "benchmark_model"), "--graph=" + model] + xnn + [
                  "--input_layer=" + layer, "--input_layer_shape=" + shape,
                  "--input_layer_value_files=%s:%s" % (layer.replace(":", "\\:"), input_file),
                  "--output_filepath=" + tf_out] + short_run + [f.format(sl=sl, vx=vx) for f in tf_flags]
        nn_outs = ["%s.%d" % (nn_out, i) for i in range(outputs)]
        nn_cmd = [os.path.join(ctx.bin, "benchmark_model"), "--graph=" + model, "--input_file=" + input_file] + xnn + [
                  "--output_file=" + ",".join(nn_outs)] + short_run + [f.format(sl=sl, vx=vx) for f in nn_flags]
        env = {"LD_LIBRARY_PATH": ctx.lib} if use_path else {}
        tf_code, tf_log = ctx.run(tf_cmd, env, "%s.%s.%s.tflite.log" % (name, route, sem))
        nn_code, nn_log = ctx.run(nn_cmd, None, "%s.%s.%s.nnemu.log" % (name, route, sem))
        what = "%s, route %s, XNNPACK %s" % (name, route, sem)
        if tf_code != 0:
            fail("%s: TFLite's benchmark_model exited %d:\n%s" % (what, tf_code, tf_log))
        if nn_code != 0:
            fail("%s: nnemu's benchmark_model exited %d:\n%s" % (what, nn_code, nn_log))
        if route in ("nnapi", "nnapi_cpu", "sl") and "NNAPI acceleration is unsupported" in tf_log:
            fail("%s: TFLite did not find nnemu's NNAPI library:\n%s" % (what, tf_log))
        tf_nodes, nn_nodes = replaced(tf_log), replaced(nn_log)
        if tf_nodes != nn_nodes:
            fail("%s: TFLite's graph will be %s, with nnemu's benchmark_model %s" %
                 (what, tf_nodes, nn_nodes))
        if route != "nnapi_cpu" and full_delegation(nn_log) and tf_nodes != "completely executed by the delegate":
            fail("%s: nnemu's benchmark_model delegates every node, TFLite: %s" % (what, tf_nodes))
        with open(tf_out, "rb") as f:
            tf_bytes = f.read()
        nn_bytes = b""
        for path in nn_outs:   # TFLite's --output_filepath holds every output, in order
            with open(path, "rb") as f:
                nn_bytes += f.read()
        if tf_bytes != nn_bytes:
            differ = sum(1 for a, b in zip(tf_bytes, nn_bytes) if a != b)
            fail("%s: output bytes differ (%d vs %d bytes, %d differ): %s vs %s" %
                 (what, len(tf_bytes), len(nn_bytes), differ, tf_out, nn_out))
        print("ok %s: %s, %d output bytes identical" % (what, tf_nodes, len(tf_bytes)))


def check_label_image(ctx, name, model, image):
    labels = os.path.join(ctx.models, "labels", "imagenet_labels.txt")
    vx = os.path.join(ctx.lib, "libvx_delegate.so")
    routes = {"nnapi": (True, ["-a", "1"]), "vx": (False, ["--external_delegate_path=" + vx])}
    for route, (use_path, flags) in routes.items():
        common = ["-m", model, "-i", image, "-l", labels] + flags
        env = {"LD_LIBRARY_PATH": ctx.lib} if use_path else {}
        tf_code, tf_log = ctx.run([os.path.join(ctx.tflite, "label_image"), "--use_xnnpack=false"] + common, env,
                                  "%s.label_image.%s.tflite.log" % (name, route))
        nn_code, nn_log = ctx.run([os.path.join(ctx.bin, "label_image")] + common, None,
                                  "%s.label_image.%s.nnemu.log" % (name, route))
        what = "%s, label_image route %s" % (name, route)
        if tf_code != 0 or nn_code != 0:
            fail("%s: exit codes TFLite %d, nnemu %d:\n%s\n%s" % (what, tf_code, nn_code, tf_log, nn_log))
        tf_top, nn_top = top_labels(tf_log), top_labels(nn_log)
        if not tf_top or not nn_top or tf_top[0] != nn_top[0]:
            fail("%s: top labels differ: TFLite %s, nnemu %s" % (what, tf_top, nn_top))
        # Through the vx delegate both run the same device on the same preprocessed picture: the
        # same five labels in the same order. (TFLite 2.21's Linux label_image has no NNAPI
        # provider: "-a 1" warns and it runs XNNPACK, whose int8 rounding is not NNAPI's, so that
        # route compares the top label only.)
        if route == "vx" and tf_top != nn_top:
            fail("%s: top 5 differ: TFLite %s, nnemu %s" % (what, tf_top, nn_top))
        print("ok %s: top label %d (top 5: TFLite %s, nnemu %s)" % (what, tf_top[0], tf_top, nn_top))


def generated(ctx, name):
    path = os.path.join(ctx.work, name + ".tflite")
    code, out = ctx.run([os.path.join(ctx.bin, "nnemu_modelgen"), name, path])
    if code != 0:
        fail("nnemu_modelgen %s:\n%s" % (name, out))
    return path


def ramp_input(ctx, model, name):
    """tflite_run's ramp (byte i = (i*7+3) % 256) for an 8-bit input, saved as a file."""
    path = os.path.join(ctx.work, name + ".in")
    code, out = ctx.run([os.path.join(ctx.tflite, "tflite_run"), "--model=" + model, "--xnnpack=0", "--runs=1",
                         "--pattern=ramp", "--save_input=" + path])
    if code != 0:
        fail("tflite_run --save_input on %s:\n%s" % (model, out))
    return path


def float_input(ctx, model, name):
    """A float input in [-1, 1): the ramp's bytes mapped to (b - 128) / 128."""
    ramp = ramp_input(ctx, model, name + ".bytes")
    with open(ramp, "rb") as f:
        count = len(f.read()) // 4
    path = os.path.join(ctx.work, name + ".in")
    with open(path, "wb") as f:
        f.write(struct.pack("<%df" % count, *[(((i * 7 + 3) % 256) - 128) / 128.0 for i in range(count)]))
    return path


def shared_model(ctx, file_name):
    path = os.path.join(ctx.models, "models", file_name)
    if not os.path.isfile(path):
        print("SKIP: shared model %s not found (../shared/models)" % path)
        sys.exit(SKIP)
    return path


def case_shared_uint8(ctx):
    model = shared_model(ctx, "mobilenet_v1_0.25_128_quant.tflite")
    check_benchmark(ctx, "mobilenet_v1_0.25_128_quant", model, os.path.join(ctx.models, "inputs", "cat_128x128x3_u8.bin"))
    check_label_image(ctx, "mobilenet_v1_0.25_128_quant", model, os.path.join(ctx.models, "images", "cat.bmp"))


def case_shared_int8(ctx):
    # TF2's post-training int8 MobileNet v2 (int8 per-channel inside, uint8 input and output through
    # QUANTIZE), on the shared cat picture, and label_image's top label.
    # (hello_world_int8.tflite's input name, "serving_default_dense_input:0", is refused by TFLite's
    # --input_layer_value_files parser, and TFLite 2.21 refuses person_detect.tflite itself: a
    # per-channel quantized_dimension out of range.)
    model = shared_model(ctx, "tf2_mobilenet_v2_1.0_224_ptq.tflite")
    check_benchmark(ctx, "tf2_mobilenet_v2_1.0_224_ptq", model, os.path.join(ctx.models, "inputs", "cat_224x224x3_u8.bin"))
    check_label_image(ctx, "tf2_mobilenet_v2_1.0_224_ptq", model, os.path.join(ctx.models, "images", "cat.bmp"))


def case_generated_float(ctx):
    name = "mobilenet_v1_0.25_128_float"
    model = generated(ctx, name)
    check_benchmark(ctx, name, model, float_input(ctx, model, name))


def case_generated_int8(ctx):
    name = "mobilenet_v1_0.25_128_full_int8"
    model = generated(ctx, name)
    check_benchmark(ctx, name, model, ramp_input(ctx, model, name))


def case_partly_delegated(ctx):
    name = "deeplab_segmenter_quant"
    model = generated(ctx, name)
    check_benchmark(ctx, name, model, ramp_input(ctx, model, name))


def case_model_blocks(ctx):
    # Today's model blocks (nnemu_modelgen, issue 24): the MobileNetV3 block (HARD_SWISH, its
    # squeeze-excite with the rescaling MEAN that TFLite's delegate lowers as MEAN then ADD of a
    # zero) in float, uint8 and int8, and the YOLO head in uint8 and int8 (synap-npu leaves the
    # nearest-neighbour resize and the SPLIT_V slices to the CPU side: several delegate kernels on
    # each route but nnapi-reference); and a dynamic-range quantized network (the converter's
    # default optimization: float activations, int8 weights), whose hybrid convolution and fully
    # connected layer TFLite's delegate lowers through DEQUANTIZE on nnapi-reference while
    # synap-npu and the vx delegate leave them to the host's hybrid kernels.
    for name, make_input in (("mobilenet_v3_block_float", float_input), ("mobilenet_v3_block_quant", ramp_input),
                             ("mobilenet_v3_block_int8", ramp_input), ("yolo_head_quant", ramp_input),
                             ("yolo_head_int8", ramp_input), ("dynamic_range_float", float_input)):
        model = generated(ctx, name)
        check_benchmark(ctx, name, model, make_input(ctx, model, name))


# Every case is registered in CTest (CMakeLists.txt). Left out of model_blocks:
# transformer_block_float on synap-npu gives 59 of its 128 floats 1-16 ULP apart (values near zero
#   after the layer norm's subtraction): the nodes synap-npu leaves (last-axis MEAN, RSQRT,
#   BATCH_MATMUL, GELU) run on TFLite's float kernels there and on nnemu's CPU path here, which
#   sum in another order (the one-operator differential tests bound each within a few ULP).
CASES = {
    "shared_uint8": case_shared_uint8,
    "shared_int8": case_shared_int8,
    "generated_float": case_generated_float,
    "generated_int8": case_generated_int8,
    "partly_delegated": case_partly_delegated,
    "model_blocks": case_model_blocks,
}


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--list":
        print("\n".join(CASES))
        return 0
    if len(sys.argv) != 5 or sys.argv[4] not in CASES:
        print(__doc__)
        return 2
    ctx = Context(sys.argv[1], sys.argv[2], os.path.join(sys.argv[3], sys.argv[4]))
    if not os.access(os.path.join(ctx.tflite, "tflite_run"), os.X_OK):
        print("SKIP: real TensorFlow Lite not found at %s (../shared/tflite)" % ctx.tflite)
        return SKIP
    shutil.rmtree(ctx.work, ignore_errors=True)
    os.makedirs(os.path.join(ctx.work, "device-root"))
    CASES[sys.argv[4]](ctx)
    return 0


if __name__ == "__main__":
    sys.exit(main())
