# script-version: 2
# Meniscus in-situ pipeline for melting scenes (candles, Chen et al. 2021, Sec. 6.9): renders the particles
# twice at every call, coloured by `temperature` into temperature_NNNNNN.png and by `material` (the phase:
# solid wax, molten wax and wick are different material ids) into phase_NNNNNN.png. Each rank renders its
# own particles and ParaView composites the images (IceT); nothing is gathered.
#
# Deck:   insitu: {script: catalyst/render_temperature_phase.py, every: 20}   (needs mpm.heat.enabled)
# Files:  <output>/insitu/temperature_000000.png, phase_000000.png, ...
#
# Rendering needs an X server: Debian's ParaView is GLX-only (no EGL/OSMesa). On a machine without a
# display run the whole job under Xvfb:
#   xvfb-run -a -s '-screen 0 1280x1024x24 -noreset' mpirun -n 4 meniscus run deck.yaml
import os

from paraview import catalyst
from paraview.simple import *  # noqa: F401,F403 (ParaView's scripting API)

WIDTH, HEIGHT = 1024, 768

particles = PVTrivialProducer(registrationName="particles")


def make_view(array, preset, name):
    view = CreateView("RenderView")
    view.ViewSize = [WIDTH, HEIGHT]
    view.OrientationAxesVisibility = 0
    view.UseColorPaletteForBackground = 0
    view.Background = [0.08, 0.08, 0.12]
    display = Show(particles, view)
    display.Representation = "Points"
    display.PointSize = 3.0
    ColorBy(display, ("POINTS", array))
    lut = GetColorTransferFunction(array)
    lut.ApplyPreset(preset, True)
    display.SetScalarBarVisibility(view, True)
    png = CreateExtractor("PNG", view, registrationName=name + "_png")
    png.Trigger = "TimeStep"
    png.Trigger.Frequency = 1
    png.Writer.FileName = name + "_{timestep:06d}.png"
    png.Writer.ImageResolution = [WIDTH, HEIGHT]
    return view, display, lut


t_view, t_display, t_lut = make_view("temperature", "Inferno (matplotlib)", "temperature")
p_view, p_display, p_lut = make_view("material", "Set1", "phase")
p_lut.InterpretValuesAsCategories = 1

options = catalyst.Options()
options.GlobalTrigger = "TimeStep"
options.GlobalTrigger.Frequency = 1
options.ExtractsOutputDirectory = os.environ.get("MENISCUS_INSITU_OUTPUT", "insitu")


def catalyst_execute(info):
    """Before each pair of images: frame the particles and fit the temperature colours to this step."""
    t_display.RescaleTransferFunctionToDataRange(False, True)
    p_display.RescaleTransferFunctionToDataRange(False, True)
    for view in (t_view, p_view):
        view.ResetCamera(False)
