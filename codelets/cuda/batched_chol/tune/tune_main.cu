// Autotuning sweep driver for potrf_batched (tools/tune_batched_chol.sh run): prints the CSV header
// and runs every candidate list (candidates_*.cu).
#include <cstdio>

namespace starfact::batched::tune {
void sweep_s0();
void sweep_s1();
void sweep_d0();
void sweep_d1();
}  // namespace starfact::batched::tune

int main() {
    std::printf("prec,n,d,nb,nt,mpb,occ,us,ok\n");
    using namespace starfact::batched::tune;
    sweep_s0();
    sweep_s1();
    sweep_d0();
    sweep_d1();
    return 0;
}
