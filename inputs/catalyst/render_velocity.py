# script-version: 2
# Meniscus in-situ pipeline (ParaView Catalyst, v2 script run through the legacy 5.11 adaptor):
# renders the particles coloured by speed |velocity| into velocity_NNNNNN.png at every call. Each
# rank renders its own particles and ParaView composites the image (IceT); nothing is gathered.
#
# Deck:   insitu: {script: catalyst/render_velocity.py, every: 20}
# Files:  <output>/insitu/velocity_000000.png, ... (absolute folder in MENISCUS_INSITU_OUTPUT)
#
# Rendering needs an X server: Debian's ParaView is GLX-only (no EGL/OSMesa). On a machine without a
# display run the whole job under Xvfb:
#   xvfb-run -a -s '-screen 0 1280x1024x24 -noreset' mpirun -n 4 meniscus run deck.yaml
import os

from paraview import catalyst
from paraview.simple import *  # noqa: F401,F403 (ParaView's scripting API)

WIDTH, HEIGHT = 1024, 768

particles = PVTrivialProducer(registrationName="particles")

view = CreateView("RenderView")
view.ViewSize = [WIDTH, HEIGHT]
view.OrientationAxesVisibility = 0
view.UseColorPaletteForBackground = 0
view.Background = [0.08, 0.08, 0.12]
view.CameraParallelProjection = 1  # 2D scenes lie in z = 0 and are seen straight on

display = Show(particles, view)
display.Representation = "Points"
display.PointSize = 3.0
ColorBy(display, ("POINTS", "velocity", "Magnitude"))
speed_lut = GetColorTransferFunction("velocity")
speed_lut.VectorMode = "Magnitude"
speed_lut.ApplyPreset("Viridis (matplotlib)", True)
display.SetScalarBarVisibility(view, True)
bar = GetScalarBar(speed_lut, view)
bar.RangeLabelFormat = "%-#6.2g"

png = CreateExtractor("PNG", view, registrationName="velocity_png")
png.Trigger = "TimeStep"
png.Trigger.Frequency = 1
png.Writer.FileName = "velocity_{timestep:06d}.png"
png.Writer.ImageResolution = [WIDTH, HEIGHT]

options = catalyst.Options()
options.GlobalTrigger = "TimeStep"
options.GlobalTrigger.Frequency = 1
options.ExtractsOutputDirectory = os.environ.get("MENISCUS_INSITU_OUTPUT", "insitu")


def catalyst_execute(info):
    """Before each image: frame the particles and fit the colours to this step's speeds."""
    display.RescaleTransferFunctionToDataRange(False, True)
    bar.Title = "velocity"
    bar.ComponentTitle = "magnitude [m/s]"
    view.ResetCamera(False)
