# Sourced by the *_vs_tflite.sh scripts: sets `models` to issue 26's seven models, the shared ones
# read in place and the generated ones written into $work by the tools' generator ($build), kept
# to those whose file name matches $MODELS (a bash regex) when it is set. Needs $shared, $build, $work.
models=("$shared/models/models/mobilenet_v1_0.25_128_quant.tflite" "$shared/models/models/mobilenet_v2_1.0_224_quant.tflite"
        "$shared/models/models/tf2_mobilenet_v2_1.0_224_ptq.tflite")
for name in mobilenet_v2_1.0_224_full_int8 mobilenet_v1_1.0_224_int8 mobilenet_v1_1.0_224_float mobilenet_v2_1.0_224_float; do
    "$build/bin/nnemu_modelgen" "$name" "$work/$name.tflite" > /dev/null
    models+=("$work/$name.tflite")
done
if [[ -n ${MODELS:-} ]]; then
    kept=()
    for m in "${models[@]}"; do [[ $(basename "$m") =~ $MODELS ]] && kept+=("$m"); done
    models=("${kept[@]}")
fi
