package dev.retrysafe.bench.herd;

import java.util.List;
import java.util.Locale;

/**
 * Draws arrivals per 100 ms as lines, one panel per scenario, on a logarithmic scale (1 to 1,000
 * arrivals), so that a spike of 1,000 and a plateau of 10 both stay readable. Plain SVG 1.1 text.
 */
final class Svg {

    /** One line of a panel. */
    record Series(String name, String color, int[] arrivals) {}

    /** One panel. */
    record Panel(String title, List<Series> series) {}

    private static final int WIDTH = 960;
    private static final int PANEL_HEIGHT = 300;
    private static final int LEFT = 60;
    private static final int RIGHT = 20;
    private static final int TOP = 40;
    private static final int BOTTOM = 40;
    private static final double MAX_LOG = 3.1; // a little above log10(1,000)

    private Svg() {}

    static String render(String title, List<Panel> panels, int buckets) {
        int height = TOP + panels.size() * (PANEL_HEIGHT + BOTTOM + TOP) + 10;
        StringBuilder s = new StringBuilder();
        s.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                        + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n",
                WIDTH,
                height,
                WIDTH,
                height));
        s.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        s.append(text(WIDTH / 2, 22, escape(title), "middle", 15));
        int y0 = TOP;
        for (Panel panel : panels) {
            panel(s, panel, y0 + TOP, buckets);
            y0 += PANEL_HEIGHT + BOTTOM + TOP;
        }
        s.append("</svg>\n");
        return s.toString();
    }

    private static void panel(StringBuilder s, Panel panel, int top, int buckets) {
        int plotWidth = WIDTH - LEFT - RIGHT;
        int bottom = top + PANEL_HEIGHT;
        s.append(text(LEFT, top - 10, escape(panel.title()), "start", 13));
        for (int tick : new int[] {1, 10, 100, 1000}) {
            double y = y(tick, top);
            s.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n",
                    LEFT,
                    y,
                    WIDTH - RIGHT,
                    y));
            s.append(text(LEFT - 6, (int) y + 4, Integer.toString(tick), "end", 11));
        }
        s.append(String.format(
                Locale.ROOT,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>%n",
                LEFT,
                bottom,
                WIDTH - RIGHT,
                bottom));
        int seconds = buckets * Herd.BUCKET_MILLIS / 1000;
        int step = seconds <= 20 ? 1 : seconds <= 60 ? 5 : 10;
        for (int sec = 0; sec <= seconds; sec += step) {
            double x = LEFT + (double) sec * 1000 / Herd.BUCKET_MILLIS * plotWidth / buckets;
            s.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>%n",
                    x,
                    bottom,
                    x,
                    bottom + 4));
            s.append(text((int) x, bottom + 16, sec + " s", "middle", 11));
        }
        s.append(text(14, top + PANEL_HEIGHT / 2, "arrivals per 100 ms (log)", "middle", 11)
                .replace("<text ", "<text transform=\"rotate(-90 14 " + (top + PANEL_HEIGHT / 2) + ")\" "));
        int legendY = top + 8;
        for (Svg.Series series : panel.series()) {
            StringBuilder points = new StringBuilder();
            for (int i = 0; i < buckets; i++) {
                double x = LEFT + (i + 0.5) * plotWidth / buckets;
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y(series.arrivals()[i], top)));
            }
            s.append(String.format(
                    Locale.ROOT,
                    "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" points=\"%s\"/>%n",
                    series.color(),
                    points));
            s.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"3\" fill=\"%s\"/>%n",
                    WIDTH - RIGHT - 300,
                    legendY,
                    series.color()));
            s.append(text(WIDTH - RIGHT - 280, legendY + 5, escape(series.name()), "start", 11));
            legendY += 16;
        }
    }

    /** The height of {@code count} arrivals: log10(1 + count), so that 0 sits on the axis. */
    private static double y(int count, int top) {
        double v = Math.log10(1 + count);
        return top + PANEL_HEIGHT - v / MAX_LOG * PANEL_HEIGHT;
    }

    private static String text(int x, int y, String content, String anchor, int size) {
        return String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"%s\" font-size=\"%d\">%s</text>%n",
                x,
                y,
                anchor,
                size,
                content);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
