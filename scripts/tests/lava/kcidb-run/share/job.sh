# written by boot.sh for 6.1.192-vla74398c8bd
export LAB_EXPECT_RELEASE='6.1.192-vla74398c8bd'
export LAB_ARCH=arm64 LAB_DEBUG=1 LAB_ACCEL=tcg LAB_CPU=cortex-a72
export LAB_MGLRU=0 LAB_ZRAM_MIB=0
run-tests
rc=$?
# On the debug kernel: a short stress run and fuzzing, side by side.
if [ "${LAB_DEBUG:-0}" = 1 ]; then
	vfuzz --seconds 60 > /lab/out/fuzz.tap 2>&1 &
	fuzz=$!
	vstress --seconds 90 > /lab/out/stress.tap 2>&1
	echo "# exit status: $?" >> /lab/out/stress.tap
	wait $fuzz
	echo "# exit status: $?" >> /lab/out/fuzz.tap
fi
patterngen 20261203 8388608 > /lab/out/pattern.bin || rc=1
i=1
while [ $i -le 5000 ]; do echo "crossing line $i"; i=$((i + 1)); done
exit $rc
