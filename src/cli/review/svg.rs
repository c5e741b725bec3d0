//! The picture of a reviewed game: Black's value over the game as a line, the mistakes marked
//! where they show (the position after the move), drawn by `plotters` with its SVG backend
//! alone, whose text is SVG text: no font is needed to make the file, the viewer draws it.

use super::output::{BLUNDER, GameReview, MISTAKE};
use crate::board::Color as Side;
use plotters::prelude::*;
use std::path::Path;

/// The picture's size in pixels.
const SIZE: (u32, u32) = (960, 480);

/// Draws `review` to an SVG file at `path`.
pub fn write_svg(review: &GameReview, path: &Path) -> Result<(), String> {
    draw(review, path).map_err(|e| format!("cannot draw {}: {e}", path.display()))
}

fn draw(review: &GameReview, path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let curve = review.black_curve();
    let last = review.game.record.moves().len().max(1) as i32;
    let highest = curve.iter().map(|p| p.1.abs()).fold(8.0, f64::max);
    let span = (highest / 8.0).ceil() * 8.0;
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let title = format!(
        "{} (black) vs {} (white), {}",
        review.game.player(Side::Black),
        review.game.player(Side::White),
        review.result_text()
    );
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(0..last, -span..span)?;
    chart
        .configure_mesh()
        .x_desc("moves played")
        .y_desc("discs for Black")
        .x_labels(13)
        .y_labels(9)
        .draw()?;
    chart.draw_series(LineSeries::new(
        [(0, 0.0), (last, 0.0)],
        BLACK.mix(0.4).stroke_width(1),
    ))?;
    chart
        .draw_series(LineSeries::new(
            curve.iter().map(|&(x, y)| (x as i32, y)),
            BLUE.stroke_width(2),
        ))?
        .label("value for Black")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLUE.stroke_width(2)));
    // A mistake shows at the position after the move: the next point of the curve.
    let after = |index: usize| curve.iter().find(|p| p.0 > index).copied();
    let marks = |least: f64, most: f64| {
        review
            .moves
            .iter()
            .filter(move |m| m.loss >= least && m.loss < most)
            .filter_map(move |m| after(m.index))
            .map(|(x, y)| (x as i32, y))
            .collect::<Vec<_>>()
    };
    let orange = RGBColor(230, 140, 0);
    chart
        .draw_series(
            marks(MISTAKE, BLUNDER)
                .into_iter()
                .map(|p| Circle::new(p, 5, orange.filled())),
        )?
        .label(format!("mistake (lost {MISTAKE} discs or more)"))
        .legend(move |(x, y)| Circle::new((x + 10, y), 5, orange.filled()));
    chart
        .draw_series(
            marks(BLUNDER, f64::INFINITY)
                .into_iter()
                .map(|p| Circle::new(p, 7, RED.filled())),
        )?
        .label(format!("blunder (lost {BLUNDER} discs or more)"))
        .legend(|(x, y)| Circle::new((x + 10, y), 7, RED.filled()));
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK.mix(0.3))
        .position(SeriesLabelPosition::UpperLeft)
        .draw()?;
    root.present()?;
    Ok(())
}
