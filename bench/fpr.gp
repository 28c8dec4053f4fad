# gnuplot script: bench/results/fpr.txt -> bench/results/fpr.png
set terminal pngcairo size 1100,450 font ",10"
set output 'bench/results/fpr.png'
set multiplot layout 1,2
set title "m = 30,000 bits, n = 7,000 ([BF-ja]): rate vs k"
set xlabel "k (hash positions per value)"
set ylabel "false-positive rate"
set key top right
plot 'bench/results/fpr.txt' index 0 using 1:3 with lines lw 2 title "classic: formula", \
     '' index 0 using 1:2 with points pt 7 title "classic: measured", \
     '' index 0 using 1:5 with lines lw 2 dt 2 title "blocked512: formula", \
     '' index 0 using 1:4 with points pt 5 title "blocked512: measured"
set title "m = 30,000 bits, k = 3: rate vs n"
set xlabel "n (values added)"
set key top left
plot 'bench/results/fpr.txt' index 1 using 1:3 with lines lw 2 title "formula", \
     '' index 1 using 1:2 with points pt 7 title "measured"
unset multiplot
