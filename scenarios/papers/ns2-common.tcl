# Shared by the ns-2 cross-check scripts in the paper folders' ns2/
# directories (sourced, not run): ns-2's random streams seeded from the
# command line's seed. Written for this project against ns-2's documented
# Tcl API.

# Seed ns-2's default stream with `seed` and return a uniform random
# variable on its own stream with the same seed (callers set min_ and max_).
proc seeded_uniform {seed} {
    global defaultRNG
    $defaultRNG seed $seed
    set rng [new RNG]
    $rng seed $seed
    set uni [new RandomVariable/Uniform]
    $uni use-rng $rng
    return $uni
}
